// Everything that decides a verdict or its cost, one type for every command that judges
// candidates (eval, run, serve, demo, fixit): read from flags (cli/settings_flags.hpp) and from
// YAML/JSON (read_settings below: run.yaml's `evaluation`, the Fixit config, a service
// request's allowed overrides). A command declares which settings it offers; a flag or field
// for one it does not offer is an error, never silently ignored.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/eval/correctness/generalisation.hpp"
#include "ptxbench/eval/timing/timed_workloads.hpp"
#include "ptxbench/sandbox/policy.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval {

struct EvaluationSettings {
  sandbox::Mode sandbox = sandbox::Mode::kStrict;  // docs/sandbox.md
  std::chrono::seconds compile_timeout{180};       // per candidate
  // RLIMIT_AS of each nvcc (and the tools it starts); 0: none.
  std::uint64_t compile_memory_limit_bytes = std::uint64_t{16} << 30;
  int parallel = 0;  // compiles at once; 0: one per CPU core
  bool gpu = true;   // run the GPU stages where a GPU of the arch is present
  // "all" or a list ("0,1,3"): one worker per GPU; empty: the build's worker on whatever GPU
  // it finds.
  std::string gpus;
  // Candidates judged at once per GPU: their sanitize and correctness stages share it, the proof
  // and timing hold it alone (scheduler.hpp); 1 judges one candidate at a time.
  int gpu_concurrency = 1;
  // Overrides every task's tolerance.rule (docs/correctness.md); unset: each task's own.
  std::optional<task::CorrectnessRule> correctness_rule;
  // Racecheck's deadline beyond the correctness check it runs beside; then "not checked".
  std::chrono::seconds racecheck_timeout{15};
  TimedWorkloads timed_workloads;        // default: the headline only
  std::filesystem::path keep_artifacts;  // empty: a temporary folder, emptied verdict by verdict
  // Where compiles are kept and found again (compile/compile_cache.hpp); empty: no cache.
  std::filesystem::path compile_cache;
  // The tasks' unseen workloads (docs/correctness.md): fail the verdict, only report, or skip.
  correctness::UnseenPolicy unseen = correctness::UnseenPolicy::kRequire;
  // Every verdict's input seed (a record's input_seed replays it); nullopt: drawn per verdict.
  std::optional<std::uint64_t> input_seed;
};

// The settings a command offers, one bit each.
enum class Setting : std::uint32_t {
  kSandbox = 1u << 0,
  kCompileTimeout = 1u << 1,
  kCompileMemory = 1u << 2,
  kParallel = 1u << 3,
  kGpu = 1u << 4,
  kGpus = 1u << 5,
  kCorrectnessRule = 1u << 6,
  kRacecheckTimeout = 1u << 7,
  kTimedWorkloads = 1u << 8,
  kKeepArtifacts = 1u << 9,
  kCompileCache = 1u << 10,
  kUnseen = 1u << 11,
  kSeed = 1u << 12,
  kGpuConcurrency = 1u << 13,
};

class SettingSet {
 public:
  constexpr SettingSet() = default;
  constexpr SettingSet(Setting setting)  // NOLINT(google-explicit-constructor)
      : bits_(static_cast<std::uint32_t>(setting)) {}
  constexpr SettingSet operator|(SettingSet other) const { return from_bits(bits_ | other.bits_); }
  constexpr SettingSet without(SettingSet other) const { return from_bits(bits_ & ~other.bits_); }
  constexpr bool has(Setting setting) const {
    return (bits_ & static_cast<std::uint32_t>(setting)) != 0;
  }
  static constexpr SettingSet all() { return from_bits((1u << 14) - 1); }

 private:
  static constexpr SettingSet from_bits(std::uint32_t bits) {
    SettingSet set;
    set.bits_ = bits;
    return set;
  }
  std::uint32_t bits_ = 0;
};
constexpr SettingSet operator|(Setting a, Setting b) {
  return SettingSet(a) | SettingSet(b);
}

// Ranges of the numbers (docs/running.md, "Limits").
inline constexpr int kMaxParallel = 1024;
inline constexpr int kMaxCompileTimeoutSeconds = 24 * 3600;
inline constexpr int kMaxCompileMemoryGiB = 4096;
inline constexpr int kMaxRacecheckTimeoutSeconds = 3600;
inline constexpr int kMaxGpuConcurrency = 64;
// The compile cache's byte budget; the least recently used compiles go beyond it.
inline constexpr std::uint64_t kCompileCacheBytes = std::uint64_t{4} << 30;

// The file and flag name of each setting, in one table: "compile_timeout_s" / "--compile-timeout".
struct SettingName {
  Setting setting;
  std::string_view field;
  std::string_view flag;
};
const std::vector<SettingName>& setting_names();

// Reads the members of a mapping into `settings` (what is absent keeps its value). Members for a
// setting outside `offered` are errors ("FIELD: not a setting of this command"), as are unknown
// members, except `caller_fields`, which the caller reads itself. Messages are
// "WHERE.FIELD: problem" (`where` may be empty).
util::Expected<EvaluationSettings> read_settings(
    const nlohmann::json& mapping, EvaluationSettings settings, SettingSet offered,
    std::string_view where, const std::vector<std::string>& caller_fields = {});

// The offered settings as a mapping read_settings reads back (run.json's "evaluation").
nlohmann::json settings_to_json(const EvaluationSettings& settings, SettingSet offered);

// Compiles at once: `parallel`, or one per CPU core when it is 0.
int parallel_compiles(const EvaluationSettings& settings);

// The correctness rule of the settings laid over every task of a suite (prompts show the rule
// that judges, so this happens where the suite is loaded).
void apply_correctness_rule(const EvaluationSettings& settings, std::vector<task::Task>& suite);

}  // namespace ptxbench::eval
