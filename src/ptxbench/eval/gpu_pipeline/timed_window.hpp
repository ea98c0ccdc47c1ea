// One timed window of a candidate (docs/gpu-engine.md, "Timing alone"): a `ptxbench-worker time
// --serve` process, started ahead of its turn when it can be (its CUDA context, library plan,
// inputs and the candidate's module ready while other candidates still run their shared stages),
// told "go" once this candidate holds the GPU alone, and watched: the trusted side asks NVML
// which other processes used the GPU in the window (timing/gpu_neighbours.hpp). A window shared
// with another process is timed again, up to kTimingAttempts.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/gpu_pipeline/verdict_run.hpp"
#include "ptxbench/eval/worker/worker_client.hpp"

namespace ptxbench::util {
class LiveProcess;
}

namespace ptxbench::eval::gpu_pipeline {

inline constexpr int kTimingAttempts = 3;

// Timing processes started ahead of their turn, per candidate (its evaluation) and workload.
class TimingStarts {
 public:
  TimingStarts();
  ~TimingStarts();
  void put(const Evaluation* candidate, std::size_t job, std::unique_ptr<util::LiveProcess> p);
  std::unique_ptr<util::LiveProcess> take(const Evaluation* candidate, std::size_t job);
  void drop(const Evaluation* candidate);  // those not taken

 private:
  std::mutex mutex_;
  std::map<std::pair<const Evaluation*, std::size_t>, std::unique_ptr<util::LiveProcess>> started_;
};

// Starts the timing process of workload `job` (nullptr when the runner cannot start live
// processes: the window then runs the process to completion the plain way).
std::unique_ptr<util::LiveProcess> start_timing_process(const VerdictRun& run, std::size_t job);

struct TimedWindow {
  worker::WorkerOutcome outcome;
  TimingWindow window;
};

// Times workload `job` (with `started`, if any, for the first window), again while a window was
// shared, and says whether the kept one was alone.
TimedWindow time_alone(const VerdictRun& run, std::size_t job,
                       std::unique_ptr<util::LiveProcess> started);

}  // namespace ptxbench::eval::gpu_pipeline
