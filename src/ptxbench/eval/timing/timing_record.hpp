// The timing record of one side: the kept samples' summary with the loop's bookkeeping.
#pragma once
#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/timing/statistics.hpp"

namespace ptxbench::eval::worker {

// The record of kept samples (milliseconds) with the loop's bookkeeping.
TimingStats make_timing_stats(const SampleSummary& summary, int dropped_throttled,
                              double sm_clock_mhz, int kernels_per_call, bool converged);

}  // namespace ptxbench::eval::worker
