// Stage 3, repair: a teacher model gets the source turn's system prompt, the task, the failing
// code and the feedback it earned, with an instruction to fix it with a minimal change, and
// goes through the normal turn loop (up to N turns) in FIXIT/repair/, a run directory: every
// turn is saved as it completes, so a killed repair resumes where it stopped. Rows are repaired
// on several threads; their evaluations share one EvaluateFn (the GPU queue).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/fixit/rows.hpp"
#include "ptxbench/model/provider.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::fixit {

struct Teacher {
  std::string name;  // in trajectory ids and provenance
  std::string kind;  // "openai", "anthropic", "command", "replay"
  std::shared_ptr<model::Provider> provider;
};

struct RepairOptions {
  int max_turns = 4;
  int concurrency = 2;
  bool strict = true;                   // PASSED (requested families executed), else correct
  std::optional<double> speedup_floor;  // and at least this speedup
};

// The user message that opens a repair conversation.
// The failed attempt as a prompt shows it: its code fenced, or (a NO_CODE row) the reply.
std::string failed_attempt(const MinedRow& row);
std::string repair_request(const MinedRow& row);

// The trajectory id of a row's repair (stable: derived from the mined row's id).
agent::TrajectorySpec repair_spec(const MinedRow& row, const Teacher& teacher,
                                  const task::Task& task);

// The turn to keep and what it means, from a finished (or resumed) repair trajectory.
RepairRow repair_row_of(const MinedRow& row, const Teacher& teacher,
                        const agent::Trajectory& trajectory, const RepairOptions& options);

struct RepairSummary {
  std::vector<RepairRow> rows;  // in the order of `selected`
  std::vector<std::string> errors;
  int resumed = 0;  // rows whose trajectory existed before this call
};

// Errors: a row's task missing from the suite, the repair directory held by another process.
util::Expected<RepairSummary> repair_rows(const FixitFolder& folder,
                                          const std::vector<MinedRow>& selected,
                                          const std::vector<task::Task>& suite,
                                          const Teacher& teacher, const agent::EvaluateFn& evaluate,
                                          const RepairOptions& options,
                                          const std::function<void(std::string_view)>& say = {});

}  // namespace ptxbench::fixit
