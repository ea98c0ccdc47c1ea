// The GPU stages of a real GPU: the judge's sequence of stages 5-8 of one candidate. The
// sequencer (this class) only orders the steps; each step is its own file beside it
// (steps.hpp), and each stage's judgement lives with its stage (sanitize/, correctness/, proof/,
// timing/). The steps run in ptxbench-worker processes (worker/ is the process and protocol
// plumbing they use):
//
//  sanitize      compute-sanitizer around `worker candidate` on the smallest workload
//  correctness   `worker candidate` (untrusted: runs the candidate on every workload's trials and
//                leaves its outputs in an exchange directory), then `worker judge` (trusted:
//                regenerates the inputs from the seeds, computes the reference, compares)
//  dynamic SASS  `worker probe` on the headline workload; kernels it leaves inconclusive are
//                counted by ncu around one small run
//  timing        `worker time` on each timed workload, one process per workload: candidate and
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
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ptxbench/eval/gpu_stages.hpp"

#include "ptxbench/eval/reference_cache/reference_eviction.hpp"
#include "ptxbench/eval/settings.hpp"
#include "ptxbench/eval/timing/timing_protocol.hpp"
#include "ptxbench/eval/worker/info_protocol.hpp"
#include "ptxbench/eval/worker/worker_client.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {
class GpuNeighbours;  // timing/gpu_neighbours.hpp
}

namespace ptxbench::eval::gpu_pipeline {

// How the sequence reaches its worker processes and what it may spend; what the user chose of
// the GPU stages comes whole in `settings` (EvaluationSettings::judge).
struct StageSequenceOptions {
  std::filesystem::path worker;  // the ptxbench-worker executable
  // The baseline algorithm cache; empty: default_baseline_cache_dir() (cache_folders.hpp).
  std::filesystem::path cache_dir;
  std::filesystem::path exchange_root;  // empty: default_exchange_root()
  // The judge's reference cache when settings.reference_cache is on; empty: its default folder
  // (default_reference_cache_dir()).
  std::filesystem::path reference_cache_dir;
  std::uint64_t reference_cache_bytes = reference_cache::kReferenceCacheBytes;
  JudgeSettings settings;
  int trials = 3;
  timing::TimingOptions timing;
  std::chrono::milliseconds info_timeout{std::chrono::seconds(60)};
  std::chrono::milliseconds candidate_timeout{std::chrono::seconds(180)};
  std::chrono::milliseconds judge_timeout{std::chrono::seconds(300)};
  std::chrono::milliseconds probe_timeout{std::chrono::seconds(120)};
  std::chrono::milliseconds ncu_timeout{std::chrono::seconds(120)};
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
  std::vector<std::pair<std::string, std::string>> worker_env;
  // The warm judge (settings.mode warm) hands inputs and outputs over in device memory it shares
  // with the candidate process; false: in shared host memory (docs/gpu-engine.md).
  bool device_exchange = true;
  // Device memory the warm judge keeps reference outputs in, when settings.reference_cache is on;
  // 0: a quarter of the GPU's memory.
  std::uint64_t reference_memory_bytes = 0;
  // The GPU this sequence runs on, as the slot names it ("0", a UUID; empty: the first visible),
  // for NVML's view of who else used it in a timed window.
  std::string device;
  // Timing processes start when a candidate's shared stages passed, ready when it holds the GPU.
  bool start_timing_early = true;
};

class VerdictRun;    // verdict_run.hpp: one candidate's pass through the steps
class WarmJudge;     // warm_judge.hpp
class TimingStarts;  // timed_window.hpp

class StageSequence final : public GpuStages {
 public:
  StageSequence(StageSequenceOptions options, std::shared_ptr<util::ProcessRunner> runner);
  ~StageSequence() override;

  bool available(arch::Arch arch, std::string& why) override;
  void run(const task::Task& task, const CompiledCandidate& candidate,
           Evaluation& evaluation) override;
  std::string identity() override;
  // Sanitize beside correctness, on the input seed the evaluation carries (drawn here only when
  // no front chose one).
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
  VerdictRun make_run(const task::Task& task, const CompiledCandidate& candidate,
                      Evaluation& evaluation);

  StageSequenceOptions options_;
  bool cache_ready_ = false;       // the baseline cache folder exists (made by the constructor)
  bool references_ready_ = false;  // the reference cache folder exists (made likewise)
  std::shared_ptr<util::ProcessRunner> runner_;
  std::optional<worker::WorkerOutcome> info_;    // `worker info`, asked once
  std::optional<worker::InfoReply> info_reply_;  // its reply, once read
  std::unique_ptr<WarmJudge> warm_;              // settings.mode warm: the slot's judge
  std::unique_ptr<TimingStarts> timing_starts_;  // timing processes started ahead of their turn
  std::once_flag neighbours_opened_;
  std::shared_ptr<GpuNeighbours> neighbours_;  // NVML's view of the GPU; null: not known
  std::string neighbours_note_;                // why not
};

}  // namespace ptxbench::eval::gpu_pipeline
