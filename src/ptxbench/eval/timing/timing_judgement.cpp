#include "ptxbench/eval/timing/timing_judgement.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "ptxbench/eval/timing/timed_output_rule.hpp"

namespace ptxbench::eval::worker {
namespace {

std::string describe(const TimingStats& t) {
  return fmt::format(
      "{:.4f} ms (IQR {:.4f}-{:.4f}, {} samples{}, {:.0f} MHz)", t.median_ms, t.q1_ms, t.q3_ms,
      t.samples,
      t.dropped_throttled > 0 ? fmt::format(", {} throttled dropped", t.dropped_throttled) : "",
      t.sm_clock_mhz);
}

}  // namespace

TimingJudgement judge_timing(const timing::TimingReply& reply, double task_flops) {
  TimingJudgement out;
  out.candidate = reply.candidate.stats;
  out.baseline = reply.baseline.stats;
  if (out.candidate->samples == 0 || out.baseline->samples == 0 || out.candidate->median_ms <= 0) {
    out.verdict = Verdict::kInternalError;
    out.message = "the timing reply holds no usable samples";
    return out;
  }
  out.speedup = out.baseline->median_ms / out.candidate->median_ms;
  for (const auto& l : reply.launches) out.launches.emplace_back(l.name, l.resources);
  if (task_flops > 0) out.tflops = task_flops / (out.candidate->median_ms * 1e-3) / 1e12;
  if (!reply.outputs_match) {
    out.verdict = Verdict::kIncorrectNumerical;
    std::vector<std::string> differing;
    for (const auto& check : reply.output_checks) {
      if (!check.passed)
        differing.push_back(timing::describe_timed_output(check.name, check.totals));
    }
    out.message = fmt::format(
        "the outputs of the timed calls differ from the baseline's on the same inputs (work "
        "skipped or cached between calls?){}{}",
        differing.empty() ? "" : ": ", fmt::join(differing, "; "));
    return out;
  }
  out.message = fmt::format("candidate {} vs baseline {}: speedup {:.3f}x{}",
                            describe(*out.candidate), describe(*out.baseline), *out.speedup,
                            out.tflops ? fmt::format(", {:.1f} TFLOP/s", *out.tflops) : "");
  if (!reply.blocking_kernel) {
    out.message +=
        "; run() waits for the GPU itself, so calls were timed without the blocking kernel";
  }
  return out;
}

}  // namespace ptxbench::eval::worker
