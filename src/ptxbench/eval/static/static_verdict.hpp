// Verdicts the machine code alone decides, so that a machine without a GPU still gives one (with
// its feedback, exit status and reward) instead of NOT_RUN: a candidate with no kernel at all,
// and, where the GPU stages cannot run, one whose SASS lacks a requested family. Where a GPU
// runs, the second still goes through the GPU stages: their correctness result tells a correct
// kernel that avoided the instructions (INSTRUCTIONS_NOT_EXECUTED) from a wrong one.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/eval/evaluation.hpp"

namespace ptxbench::eval {

// The requested families with no instruction in the static SASS, in task order.
std::vector<std::string> requested_absent(const Evaluation& evaluation);

// The message of a candidate that compiled to no kernel at all.
std::string no_device_code_message(const Evaluation& evaluation);

// With the GPU stages not run (`why`): sets verdict INSTRUCTIONS_ABSENT and its message when a
// requested family is absent from the SASS and returns true; otherwise leaves `e` as it is.
bool decide_without_gpu(Evaluation& e, const std::string& why);

}  // namespace ptxbench::eval
