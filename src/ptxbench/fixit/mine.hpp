// Stage 1, mine: every failing turn of the given runs, with what the model saw (system and task
// prompt, the feedback of the turn), what it replied and the code extracted, filtered and
// de-duplicated by the hash of the normalised code.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/fixit/rows.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::fixit {

struct MineFilters {
  std::set<eval::Verdict> verdicts;  // empty: every failing verdict
  std::set<int> turns;               // empty: every turn
  std::set<prompt::ContextLevel> contexts;
  std::vector<std::string> tasks;  // names or globs; empty: all
  std::vector<std::string> models;
  // Also take turns whose GPU stages did not run here (NOT_RUN); a replayed control's declared
  // verdict (run.json config.solutions) is then its verdict kind.
  bool include_not_run = false;
  // Also take replies without a code block (NO_CODE): the row's code is empty and a teacher
  // repairs from the reply itself. For a model that rarely writes code, the only failures.
  bool include_no_code = false;
};

struct MineResult {
  std::vector<MinedRow> rows;
  int turns_seen = 0;
  int duplicates = 0;
  std::vector<std::string> problems;  // unreadable trajectories, skipped
};

// Failing verdicts that a repair can start from (code exists and the candidate is at fault).
bool is_minable_failure(eval::Verdict verdict);

// Comments removed, whitespace runs collapsed: two replies differing only in those are one row.
std::string normalize_code(std::string_view code);

// Errors: a run directory without run.json or trajectories/.
util::Expected<MineResult> mine_runs(const std::vector<std::filesystem::path>& runs,
                                     const std::vector<task::Task>& suite,
                                     const MineFilters& filters);

// {"rows", "duplicates", "counts": {task: {verdict kind: {turn: n}}}}
nlohmann::json manifest_of(const MineResult& result);

bool matches_selector(std::string_view name, const std::vector<std::string>& selectors);

}  // namespace ptxbench::fixit
