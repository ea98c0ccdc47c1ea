// The Fixit stages as the CLI runs them over one open Fixit folder: each reads the rows of the
// stage before, runs, publishes its own rows atomically, records itself in fixit.json and
// prints what it did. `fixit all` and `fixit demo` chain them; each returns an exit code.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/eval/engine.hpp"
#include "ptxbench/eval/settings.hpp"
#include "ptxbench/fixit/balance.hpp"
#include "ptxbench/fixit/explain.hpp"
#include "ptxbench/fixit/explanation_variant.hpp"
#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/fixit/mine.hpp"
#include "ptxbench/fixit/repair.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::cli {

// Who answers a stage: the project's replay catalog, a provider config file (a run.yaml model
// entry), or a program.
struct TeacherChoice {
  std::string replay_solutions;  // non-empty: the replay teacher over this solutions directory
  std::string config_file;
  std::vector<std::string> command;
  std::string name;  // for command teachers (default "command-teacher")
};

// The engine settings Fixit's evaluating stages offer (repair, verify, demo): all but kept
// artefacts. Two compiles at once unless told otherwise.
inline constexpr eval::SettingSet kFixitSettings =
    eval::SettingSet::all().without(eval::Setting::kKeepArtifacts);
inline const eval::EvaluationSettings kFixitDefaults{.parallel = 2};

struct FixitEnvironment {
  std::vector<task::Task> suite;  // with the settings' correctness rule laid over it
  eval::EvaluationSettings settings = kFixitDefaults;
  // The engine of the stages that evaluate, opened by the first of them (engine_of).
  mutable std::shared_ptr<eval::Engine> engine;
};

// The environment's engine, opened on first use; null after printing why (exit kExitUsage).
std::shared_ptr<eval::Engine> engine_of(const FixitEnvironment& env, std::string_view stage);

int fixit_mine(const fixit::FixitFolder& folder, const FixitEnvironment& env,
               const std::vector<std::filesystem::path>& runs, const fixit::MineFilters& filters);
int fixit_balance(const fixit::FixitFolder& folder, const std::vector<fixit::Recipe>& recipes);
int fixit_repair(const fixit::FixitFolder& folder, const FixitEnvironment& env,
                 const std::string& selection, const TeacherChoice& teacher,
                 const fixit::RepairOptions& options);
// `reevaluate`: evaluate NOT_RUN repairs again on this machine (every repair with `all`).
int fixit_verify(const fixit::FixitFolder& folder, const FixitEnvironment& env, bool reevaluate,
                 bool all);
int fixit_explain(const fixit::FixitFolder& folder, const FixitEnvironment& env,
                  const std::string& selection, const TeacherChoice& explainer,
                  const fixit::ExplainOptions& options);
// Writes export/<selection>/<explanation variant>/; `written` (when given) receives that folder.
int fixit_export(const fixit::FixitFolder& folder, const FixitEnvironment& env,
                 const std::string& selection, bool include_unverified,
                 const std::vector<std::filesystem::path>& kernelgen_runs,
                 const fixit::ExplanationFilter& explanations = {},
                 std::filesystem::path* written = nullptr);

// The selection a stage works on: the named one; with no name, the only one, or every mined
// row when there is none.
util::Expected<std::optional<fixit::Selection>> read_selection(const fixit::FixitFolder& folder,
                                                               const std::string& name);

}  // namespace ptxbench::cli
