// Stage 4, verify: a repair is kept only when ptxbench judged its kernel PASSED on a GPU with
// every requested instruction family executed substantially (measured, not inferred from the
// source). A repair whose GPU stages could not run here is `unverified` (kept, never exported
// as verified); anything else is `rejected`, with the reason.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/fixit/rows.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::fixit {

// The verdict of verification on one evaluation.
VerifiedRow judge(const std::string& mined_id, const eval::Evaluation& evaluation);

struct VerifyOptions {
  // Evaluate the repaired code again (e.g. repaired on a CPU machine, verified on a GPU one):
  // rows whose recorded evaluation is NOT_RUN, or every row when `reevaluate_all`.
  const agent::EvaluateFn* evaluate = nullptr;
  bool reevaluate_all = false;
};

std::vector<VerifiedRow> verify_rows(const std::vector<RepairRow>& repairs,
                                     const std::vector<MinedRow>& mined,
                                     const std::vector<task::Task>& suite,
                                     const VerifyOptions& options);

}  // namespace ptxbench::fixit
