// The timing stage's protocol with ptxbench-worker: `worker time` (untrusted) gets one job with a
// TimingRequest and answers a TimingReply: both sides' statistics, the candidate's kernels as
// CUPTI traced them, the stream rule's summary, what run() did to L2 persistence, and the check of
// the last timed outputs against the baseline's. This file is the one place both are written and
// read.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptxbench/eval/correctness/output_comparison.hpp"
#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/timing/stream_rule.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::timing {

struct TimingOptions {
  int min_samples = 10;
  int max_samples = 1000;
  double target_relative_noise = 0.005;  // stop when IQR / median falls below this
  double max_seconds = 4.0;              // per measured function (candidate and baseline each)
  double throttle_clock_ratio = 0.75;    // a sample whose SM clock is below this share of the
                                         // maximum clock is dropped (as is any thermal/HW slowdown)
};

struct TimingRequest {
  TimingOptions options;
};

// One side's statistics with what the loop noticed while taking them.
struct TimingSide {
  TimingStats stats;
  double event_median_ms = 0;  // CUDA events around the call, for comparison with the trace
  int power_capped_samples = 0;
  int samples_without_gpu_work = 0;  // nothing traced: the events' time was used
};

// A kernel of the candidate as launched in the timed calls: its last launch's resources.
struct LaunchRecord {
  std::string name;  // as CUPTI gives it (mangled)
  LaunchResources resources;
};

// The last timed round's output against the baseline's on the same inputs.
struct TimedOutputCheck {
  std::string name;
  worker::ComparisonTotals totals;
  bool passed = false;
};

struct TimingReply {
  TimingSide candidate;
  TimingSide baseline;
  std::string baseline_description;
  std::vector<std::string> kernels;          // every kernel a candidate call launched (mangled)
  std::vector<std::string> foreign_kernels;  // of those, the ones not in the candidate's cubin
  worker::StreamSummary streams;
  bool blocking_kernel = true;  // false: run() waits for the GPU itself, timed without it
  int rounds = 0;
  int max_sm_clock_mhz = 0;
  bool clocks_read = false;  // NVML answered
  std::uint64_t l2_flush_bytes = 0;
  std::vector<LaunchRecord> launches;
  std::string l2_persistence;  // what run() did to keep data in L2 (empty: nothing)
  double wall_seconds = 0;
  std::vector<TimedOutputCheck> output_checks;
  bool outputs_match = false;
  std::uint64_t host_memory_budget_bytes = 0;
};

nlohmann::json to_json(const TimingRequest& request);
util::Expected<TimingRequest> timing_request_from_json(const nlohmann::json& json);
nlohmann::json to_json(const TimingReply& reply);
util::Expected<TimingReply> timing_reply_from_json(const nlohmann::json& body);

// TimingStats as the reply holds them.
nlohmann::json to_json(const TimingStats& stats);

}  // namespace ptxbench::eval::timing
