// The GpuStages of a real GPU: the judge's sequence of stages 5-8 of one candidate, each stage
// in ptxbench-worker processes (worker/ is the process and protocol plumbing they use).
//
//  sanitize      compute-sanitizer around `worker candidate` on the smallest workload
//                (sanitizer.hpp)
//  correctness   `worker candidate` (untrusted: runs the candidate on every workload's trials and
//                leaves its outputs in an exchange directory), then `worker judge` (trusted:
//                regenerates the inputs from the seeds, computes the reference, compares)
//  dynamic SASS  `worker probe` on the headline workload (dynamic_sass.hpp); kernels it leaves
//                inconclusive are counted by ncu around one small run (ncu_counts.hpp)
//  timing        `worker time` on each timed workload (the headline, and whatever
//                options.timed_workloads adds), one process per workload: candidate and
//                baseline interleaved
//
// Sanitize runs beside correctness (neither is timed); dynamic SASS and timing follow, timing
// alone on the GPU. The verdict keeps the stages' order (docs/gpu-engine.md, "Order and
// overlap"). Each process is new, so a candidate that faults, hangs or exhausts memory costs its
// own processes and the next starts on a clean GPU context.
#pragma once
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ptxbench/eval/correctness/generalisation.hpp"
#include "ptxbench/eval/gpu_stages.hpp"
#include "ptxbench/eval/timing/timed_workloads.hpp"
#include "ptxbench/eval/timing/timing_protocol.hpp"
#include "ptxbench/eval/worker/info_protocol.hpp"
#include "ptxbench/eval/worker/worker_client.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval::gpu_pipeline {

struct WorkerGpuStagesOptions {
  std::filesystem::path worker;     // the ptxbench-worker executable
  std::filesystem::path cache_dir;  // baseline algorithm cache; empty: default_baseline_cache_dir()
  std::filesystem::path exchange_root;  // empty: default_exchange_root()
  int trials = 3;
  timing::TimingOptions timing;
  std::chrono::milliseconds info_timeout{std::chrono::seconds(60)};
  std::chrono::milliseconds candidate_timeout{std::chrono::seconds(180)};
  std::chrono::milliseconds judge_timeout{std::chrono::seconds(300)};
  std::chrono::milliseconds probe_timeout{std::chrono::seconds(120)};
  std::chrono::milliseconds ncu_timeout{std::chrono::seconds(120)};
  std::chrono::milliseconds racecheck_timeout{std::chrono::seconds(15)};  // then "not checked"
  std::chrono::milliseconds timing_timeout{std::chrono::seconds(120)};
  std::chrono::milliseconds call_timeout{std::chrono::seconds(20)};  // one run() and its kernels
  std::uint64_t device_memory_limit_bytes = 0;  // beyond the harness's tensors; 0: no cap
  std::uint64_t host_memory_budget_bytes = 16ull << 30;
  std::uint64_t max_exchange_bytes = 8ull << 30;  // outputs handed over per candidate process
  bool sanitize = true;
  std::filesystem::path compute_sanitizer;  // empty: find_compute_sanitizer()
  bool prove_execution = true;
  // Nsight Compute counts the kernels the probe could not (ncu_counts.hpp); empty: no fallback.
  std::filesystem::path ncu = "ncu";
  bool time = true;
  TimedWorkloads timed_workloads;  // default: the headline only
  // The task's unseen workloads: judged after the shown ones (correctness/generalisation.hpp).
  correctness::UnseenPolicy unseen = correctness::UnseenPolicy::kRequire;
  // The verdict's input seed (correctness/input_seed.hpp); nullopt: drawn per verdict.
  std::optional<std::uint64_t> input_seed;
  std::vector<std::pair<std::string, std::string>> worker_env;
};

// $PTXBENCH_CACHE_DIR/baselines, else $XDG_CACHE_HOME/ptxbench/baselines, else
// ~/.cache/ptxbench/baselines.
std::filesystem::path default_baseline_cache_dir();

class WorkerGpuStages final : public GpuStages {
 public:
  WorkerGpuStages(WorkerGpuStagesOptions options, std::shared_ptr<util::ProcessRunner> runner);

  bool available(arch::Arch arch, std::string& why) override;
  void run(const task::Task& task, const CompiledCandidate& candidate,
           Evaluation& evaluation) override;
  // Sanitize beside correctness; draws and records the verdict's input seed.
  bool run_shared(const task::Task& task, const CompiledCandidate& candidate,
                  Evaluation& evaluation) override;
  // The proof, then timing, on the seed the shared phase recorded.
  void run_exclusive(const task::Task& task, const CompiledCandidate& candidate,
                     Evaluation& evaluation) override;
  std::optional<DeviceMemory> device_memory() const override;
  std::uint64_t shared_memory_need(const task::Task& task) const override;

  // The jobs of a task's workloads for this candidate, in task order.
  std::vector<worker::WorkerJob> make_jobs(const task::Task& task,
                                           const CompiledCandidate& candidate) const;

 private:
  struct Run;
  Run make_run(const task::Task& task, const CompiledCandidate& candidate, Evaluation& evaluation);
  worker::WorkerJob configure(worker::WorkerJob job, const CompiledCandidate& candidate) const;

  WorkerGpuStagesOptions options_;
  bool cache_ready_ = false;  // the baseline cache folder exists (made by the constructor)
  std::shared_ptr<util::ProcessRunner> runner_;
  std::optional<worker::WorkerOutcome> info_;    // `worker info`, asked once
  std::optional<worker::InfoReply> info_reply_;  // its reply, once read
};

}  // namespace ptxbench::eval::gpu_pipeline
