// Timing results as the worker reports them and as the evaluation records them.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/timing/statistics.hpp"

namespace ptxbench::eval::worker {

nlohmann::json to_json(const TimingStats& stats);
std::optional<TimingStats> timing_from_json(const nlohmann::json& json);  // nullopt: malformed

// The record of kept samples (milliseconds) with the loop's bookkeeping.
TimingStats make_timing_stats(const SampleSummary& summary, int dropped_throttled,
                              double sm_clock_mhz, int kernels_per_call, bool converged);

}  // namespace ptxbench::eval::worker
