// The short human summary of evaluations: one table row per candidate (file, verdict, requested
// families found, registers / shared memory / spills, headline speedup, task), the speedup of
// every timed workload and their geometric mean when more than the headlines were timed, then
// each candidate's one-line reason when it did not pass (with its task when there are several).
#pragma once
#include <string>
#include <vector>

#include "ptxbench/eval/evaluation.hpp"

namespace ptxbench::eval {
std::string render_summary(const std::vector<Evaluation>& evaluations);

// One line for one verdict as it comes: "FILE on TASK (ARCH): VERDICT  RESULT  [REASON]".
std::string render_verdict_line(const Evaluation& evaluation);
}  // namespace ptxbench::eval
