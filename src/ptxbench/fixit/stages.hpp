// The Fixit stages over one open Fixit folder: each reads the rows of the stage before, runs,
// merges its rows into those of earlier runs (other selections, other teachers), publishes them
// atomically and records itself in fixit.json. Each returns what it did as a typed outcome; the
// CLI prints it (cli/fixit_output). `fixit all` and `fixit demo` chain them (fixit/chain.hpp).
#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/eval/engine.hpp"
#include "ptxbench/eval/settings.hpp"
#include "ptxbench/fixit/balance.hpp"
#include "ptxbench/fixit/explain.hpp"
#include "ptxbench/fixit/explanation_variant.hpp"
#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/fixit/mine.hpp"
#include "ptxbench/fixit/repair.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::fixit {

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

// Opens the engine for a stage (named for messages); the CLI's also prints the engine's warning.
using EngineOpener = std::function<util::Expected<std::shared_ptr<eval::Engine>>(
    const eval::EvaluationSettings& settings, std::string_view stage)>;
// A progress line of a running stage (a skipped trajectory, a repair's turn).
using Say = std::function<void(std::string_view)>;

struct Environment {
  std::vector<task::Task> suite;  // with the settings' correctness rule laid over it
  eval::EvaluationSettings settings = kFixitDefaults;
  EngineOpener open_engine;  // empty: eval::open_engine
  Say say;                   // empty: progress is not shown
  // The engine of the stages that evaluate, opened by the first of them (engine_of).
  mutable std::shared_ptr<eval::Engine> engine;
};

// The environment's engine, opened on first use. Error: why it cannot be opened.
util::Expected<std::shared_ptr<eval::Engine>> engine_of(const Environment& env,
                                                        std::string_view stage);

// A stage's error is a usage or input problem (exit 2). Internal errors of single rows do not
// stop a stage: its outcome lists them (exit 3 after the outcome is shown).
struct MineOutcome {
  std::size_t rows = 0;
  int turns_seen = 0;
  int duplicates = 0;
  std::filesystem::path path;
  nlohmann::json manifest;  // manifest_of: counts by task, verdict kind and turn
};

struct BalanceOutcome {
  Selection selection;
  std::size_t mined = 0;
  std::filesystem::path path;
};

struct RepairOutcome {
  std::string teacher;
  std::vector<RepairRow> rows;  // of this run
  std::filesystem::path path;
  std::vector<std::string> errors;  // internal errors: the stage fails after saying what it did
};

struct VerifyOutcome {
  std::vector<VerifiedRow> rows;
  std::filesystem::path path;
};

struct ExplainOutcome {
  std::size_t explained = 0;
  int accepted = 0;
  ExplanationLimits limits;
  std::filesystem::path path;
};

struct ExportOutcome {
  std::size_t fixit_rows = 0;
  std::size_t kernelgen_rows = 0;
  std::filesystem::path dir;
  bool explained = false;  // an explanation variant was found
  bool filtered = false;   // the explanations were filtered by length or explainer
  std::vector<std::string> left_out;
};

util::Expected<MineOutcome> fixit_mine(const FixitFolder& folder, const Environment& env,
                                       const std::vector<std::filesystem::path>& runs,
                                       const MineFilters& filters);
// One outcome per recipe.
util::Expected<std::vector<BalanceOutcome>> fixit_balance(const FixitFolder& folder,
                                                          const std::vector<Recipe>& recipes);
util::Expected<RepairOutcome> fixit_repair(const FixitFolder& folder, const Environment& env,
                                           const std::string& selection,
                                           const TeacherChoice& teacher,
                                           const RepairOptions& options);
// `reevaluate`: evaluate NOT_RUN repairs again on this machine (every repair with `all`).
util::Expected<VerifyOutcome> fixit_verify(const FixitFolder& folder, const Environment& env,
                                           bool reevaluate, bool all);
// Explains the repairs of `teacher` (may be empty when one teacher repaired the rows).
util::Expected<ExplainOutcome> fixit_explain(const FixitFolder& folder, const Environment& env,
                                             const std::string& selection,
                                             const std::string& teacher,
                                             const TeacherChoice& explainer,
                                             const ExplainOptions& options);
// Writes export/<selection>/<explanation variant>[--<teacher>]/ (fixit/repair_teachers.hpp)
// from the repairs of `teacher` (may be empty when the folder has one teacher).
util::Expected<ExportOutcome> fixit_export(const FixitFolder& folder, const Environment& env,
                                           const std::string& selection, const std::string& teacher,
                                           bool include_unverified,
                                           const std::vector<std::filesystem::path>& kernelgen_runs,
                                           const ExplanationFilter& explanations = {});

// The selection a stage works on: the named one; with no name, the only one, or every mined
// row when there is none.
util::Expected<std::optional<Selection>> read_selection(const FixitFolder& folder,
                                                        const std::string& name);

// The suite of `tasks_dir` (empty: the built-in one) with the settings' correctness rule laid
// over it; no engine yet.
util::Expected<Environment> load_environment(const std::filesystem::path& tasks_dir,
                                             const eval::EvaluationSettings& settings);

}  // namespace ptxbench::fixit
