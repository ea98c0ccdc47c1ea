// Stage 5, explain: a teacher writes, in the first person and before the code, the reasoning of
// someone who finds the bug and fixes it: why the failing kernel was wrong, what the feedback
// shows, what was tried and rejected, the numbers. Explanations that fail the checks of
// explanation_check.hpp are sent back with the reason and asked again, up to a limit.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/fixit/explanation_check.hpp"
#include "ptxbench/fixit/repair.hpp"
#include "ptxbench/fixit/rows.hpp"

namespace ptxbench::fixit {

struct ExplainOptions {
  ExplanationLimits limits{.bin = {"medium", 150, 500}};
  int max_attempts = 3;
};

// The conversation that asks for one explanation.
model::Conversation explain_request(const MinedRow& row, const RepairRow& repair,
                                    const LengthBin& bin);

// Replay keys: "explain__<mined id>" selects a recorded explanation.
std::string explain_call_id(const MinedRow& row);

ExplainedRow explain_row(const MinedRow& row, const RepairRow& repair, const Teacher& explainer,
                         const ExplainOptions& options);

// Explains every row that has a repair with code, keeping accepted explanations of an earlier
// call with the same explainer and bin (so a rerun asks only for what is missing).
std::vector<ExplainedRow> explain_rows(const std::vector<MinedRow>& mined,
                                       const std::vector<RepairRow>& repairs,
                                       const std::vector<ExplainedRow>& before,
                                       const Teacher& explainer, const ExplainOptions& options,
                                       const std::function<void(std::string_view)>& say = {});

}  // namespace ptxbench::fixit
