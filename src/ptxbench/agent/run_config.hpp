// What a run covers and how: models x tasks x archs x context levels x samples, turns, history
// policy, early stop, evaluation settings, and where it is written. Read from run.yaml
// (docs/running.md, examples/run.yaml) and/or CLI flags; written back, resolved and without
// secrets, into run.json.
#pragma once
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/agent/history.hpp"
#include "ptxbench/arch/arch.hpp"
#include "ptxbench/model/provider_config.hpp"
#include "ptxbench/prompt/context_level.hpp"
#include "ptxbench/sandbox/policy.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::agent {

struct EvaluationSettings {
  bool gpu = true;   // run the GPU stages where a GPU of the arch exists
  int parallel = 0;  // evaluations at once; 0: the number of CPU cores
  std::chrono::seconds compile_timeout{180};
  // Overrides every task's tolerance.rule (docs/correctness.md); unset: each task's own.
  std::optional<task::CorrectnessRule> correctness_rule;
  sandbox::Mode sandbox = sandbox::Mode::kStrict;  // docs/sandbox.md
};

struct RunConfig {
  std::vector<model::ProviderConfig> models;
  std::vector<std::string> tasks{"core"};  // names, globs (gemm_*), "core" or "all"
  std::vector<arch::Arch> archs{arch::Arch::kHopper};
  std::vector<prompt::ContextLevel> contexts{prompt::ContextLevel::kNone};
  int samples = 1;
  int turns = 8;
  HistoryPolicy history;
  std::optional<double> target_speedup;
  EvaluationSettings evaluation;
  std::filesystem::path out;          // the run directory
  std::filesystem::path tasks_dir;    // empty: the built-in suite
  std::filesystem::path context_dir;  // empty: the built-in context documents
};

// Relative paths (out, tasks_dir, context_dir, replay paths) resolve against `base_dir`, the
// directory of the config file. Unknown fields are errors.
util::Expected<RunConfig> run_config_from_json(const nlohmann::json& json,
                                               const std::filesystem::path& base_dir);
util::Expected<RunConfig> load_run_config(const std::filesystem::path& path);

// Checks what flags and files together must give: at least one model, distinct model names,
// samples and turns >= 1, an output directory.
util::Expected<bool> validate(const RunConfig& config);

// The tasks the selectors name, in suite order, each once. An unknown name or a glob matching
// nothing is an error.
util::Expected<std::vector<const task::Task*>> select_tasks(
    const std::vector<task::Task>& suite, const std::vector<std::string>& selectors);

// Comma-separated lists from flags: "hopper,blackwell", "none,isa".
util::Expected<std::vector<arch::Arch>> parse_arch_list(const std::vector<std::string>& names);
util::Expected<std::vector<prompt::ContextLevel>> parse_context_list(
    const std::vector<std::string>& names);

// run.json's "config": every setting, resolved task names, no secrets.
nlohmann::json to_json(const RunConfig& config, const std::vector<const task::Task*>& tasks);
// The part that decides which trajectories exist; a rerun must match it to resume.
nlohmann::json grid_of(const RunConfig& config, const std::vector<const task::Task*>& tasks);

}  // namespace ptxbench::agent
