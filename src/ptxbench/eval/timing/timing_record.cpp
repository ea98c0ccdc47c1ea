#include "ptxbench/eval/timing/timing_record.hpp"

namespace ptxbench::eval::worker {

TimingStats make_timing_stats(const SampleSummary& s, int dropped_throttled, double sm_clock_mhz,
                              int kernels_per_call, bool converged) {
  return TimingStats{.median_ms = s.median,
                     .q1_ms = s.q1,
                     .q3_ms = s.q3,
                     .min_ms = s.min,
                     .max_ms = s.max,
                     .samples = s.count,
                     .dropped_throttled = dropped_throttled,
                     .relative_noise = s.relative_noise,
                     .sm_clock_mhz = sm_clock_mhz,
                     .kernels_per_call = kernels_per_call,
                     .converged = converged};
}

}  // namespace ptxbench::eval::worker
