// What a run covers and how: models x tasks x archs x context levels x samples, turns, history
// policy, early stop, evaluation settings, and where it is written. Read from run.yaml
// (docs/running.md, examples/run.yaml) and/or CLI flags; written back, resolved and without
// secrets, into run.json.
#pragma once
#include <chrono>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/agent/history.hpp"
#include "ptxbench/arch/arch.hpp"
#include "ptxbench/eval/settings.hpp"
#include "ptxbench/model/provider_config.hpp"
#include "ptxbench/prompt/context_level.hpp"
#include "ptxbench/sandbox/policy.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::agent {

// The run's evaluation settings (the engine's, eval/settings.hpp) and what the run loop does
// without the GPU stages.
struct RunEvaluation : eval::EvaluationSettings {
  // Without the GPU stages the feedback after turn 1 says nothing new, so such a run stops
  // after turn 1 unless this asks for every turn.
  bool all_turns_without_gpu = false;
};

// The engine settings a run offers: all of them.
inline constexpr eval::SettingSet kRunSettings = eval::SettingSet::all();

// Ranges of the numbers (docs/running.md, "Limits").
inline constexpr int kMaxSamples = 10000;
inline constexpr int kMaxTurns = 1000;
inline constexpr double kMaxTargetSpeedup = 1e6;

// One explicit (task, context level) pair; a run listing cells runs exactly these.
struct Cell {
  std::string task;
  prompt::ContextLevel context = prompt::ContextLevel::kNone;
};

// The retrieval context level's source: a Fixit folder whose verified repairs it adds, k at a
// time (run.yaml: `retrieval: {fixit: FOLDER, k: 3}`; flags --fixit, --retrieve-k).
inline constexpr int kMaxRetrieveK = 64;
struct RetrievalConfig {
  std::filesystem::path fixit;  // empty: none (the retrieval level is then an error)
  int k = 3;
};

struct RunConfig {
  std::vector<model::ProviderConfig> models;
  std::vector<std::string> tasks{"core"};  // names, globs (gemm_*), "core" or "all"
  std::vector<arch::Arch> archs{arch::Arch::kHopper};
  std::vector<prompt::ContextLevel> contexts{prompt::ContextLevel::kNone};
  std::vector<Cell> cells;  // non-empty: these pairs instead of tasks x contexts
  int samples = 1;
  int turns = 8;
  HistoryPolicy history;
  std::optional<double> target_speedup;
  RunEvaluation evaluation;
  std::filesystem::path out;          // the run directory
  std::filesystem::path tasks_dir;    // empty: the built-in suite
  std::filesystem::path context_dir;  // empty: the built-in context documents
  RetrievalConfig retrieval;
};

// run.yaml's fields: the grid (what is run and how it is judged; a study's `grid:` holds these)
// and the whole set, the grid plus who runs and where (models, out, tasks_dir, retrieval).
const std::set<std::string>& run_grid_fields();
const std::set<std::string>& run_config_fields();

// Relative paths (out, tasks_dir, context_dir, replay paths) resolve against `base_dir`, the
// directory of the config file. Unknown fields are errors.
util::Expected<RunConfig> run_config_from_json(const nlohmann::json& json,
                                               const std::filesystem::path& base_dir);
util::Expected<RunConfig> load_run_config(const std::filesystem::path& path);

// Checks what flags and files together must give: at least one model, distinct model names,
// every number in its range, an output directory.
util::Expected<bool> validate(const RunConfig& config);

// The tasks the selectors name, in suite order, each once. An unknown name or a glob matching
// nothing is an error.
util::Expected<std::vector<const task::Task*>> select_tasks(
    const std::vector<task::Task>& suite, const std::vector<std::string>& selectors);

// The turns each trajectory gets: `turns`, or 1 when the GPU stages are off and
// all_turns_without_gpu is not set.
int effective_turns(const RunConfig& config);

// The task selectors of the run: the cells' task names when cells are listed.
std::vector<std::string> task_selectors(const RunConfig& config);

// "gemm_n7168_k5120:isa" -> a cell; the task name is checked later, against the suite.
util::Expected<Cell> parse_cell(std::string_view text);

// Comma-separated lists from flags: "hopper,blackwell", "none,isa".
util::Expected<std::vector<arch::Arch>> parse_arch_list(const std::vector<std::string>& names);
util::Expected<std::vector<prompt::ContextLevel>> parse_context_list(
    const std::vector<std::string>& names);

// run.json's "config": every setting, resolved task names, no secrets.
nlohmann::json to_json(const RunConfig& config, const std::vector<const task::Task*>& tasks);
// The part that decides which trajectories exist; a rerun must match it to resume.
nlohmann::json grid_of(const RunConfig& config, const std::vector<const task::Task*>& tasks);

}  // namespace ptxbench::agent
