// The engine's settings as flags: one function adds them to a command (the same names and help
// in every command, only those the command offers), one reads them over the settings a command
// starts from (its defaults, or run.yaml's `evaluation`). A flag the command does not offer is
// not registered, so CLI11 refuses it as an unknown argument.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ptxbench/eval/engine.hpp"
#include "ptxbench/eval/settings.hpp"
#include "ptxbench/util/expected.hpp"

namespace CLI {
class App;
}

namespace ptxbench::cli {

// What the user gave; unset: the starting settings' value stays.
struct SettingsFlags {
  std::optional<std::string> sandbox;
  std::optional<int> compile_timeout_seconds;
  std::optional<int> compile_memory_gib;
  std::optional<int> parallel;
  bool no_gpu = false;
  std::optional<std::string> gpus;
  std::optional<int> gpu_concurrency;
  std::optional<std::string> correctness_rule;
  std::optional<int> racecheck_timeout_seconds;
  std::optional<std::string> time_workloads;
  std::optional<std::string> keep_artifacts;
  std::optional<std::string> compile_cache;
  std::optional<std::string> unseen;
  std::optional<std::uint64_t> seed;
};

// `defaults` supplies the values the help shows.
void add_settings_flags(CLI::App& command, SettingsFlags& flags, eval::SettingSet offered,
                        const eval::EvaluationSettings& defaults = {});

// The flags given laid over `settings`; an error is a usage error naming the flag.
util::Expected<eval::EvaluationSettings> settings_from_flags(const SettingsFlags& flags,
                                                             eval::EvaluationSettings settings);

// The engine of a command (eval::open_engine); null after printing "ptxbench COMMAND: problem"
// (the caller exits kExitUsage). Prints the engine's warning, if any.
std::shared_ptr<eval::Engine> open_command_engine(std::string_view command,
                                                  const eval::EvaluationSettings& settings);

}  // namespace ptxbench::cli
