// Stage 8's result from the timing worker's reply (timing_protocol.hpp): both sides' statistics,
// the speedup (baseline median / candidate median) and the candidate's rate. A candidate whose
// outputs of the timed calls differ from the baseline's on the same inputs (it skipped work it had
// seen before) is INCORRECT_NUMERICAL: its times would measure the shortcut. Pure.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/timing/timing_protocol.hpp"

namespace ptxbench::eval::worker {

struct TimingJudgement {
  Verdict verdict = Verdict::kPassed;
  std::string message;  // on failure: why; on success: the one-line summary
  std::optional<TimingStats> candidate;
  std::optional<TimingStats> baseline;
  std::optional<double> speedup;
  std::optional<double> tflops;
  // The candidate's kernels as they were launched in the timed calls (CUPTI activity records):
  // the name as CUPTI gives it (mangled) and the resources of its last launch.
  std::vector<std::pair<std::string, LaunchResources>> launches;
};

// `task_flops`: Task::flops of the timed workload.
TimingJudgement judge_timing(const timing::TimingReply& reply, double task_flops);

}  // namespace ptxbench::eval::worker
