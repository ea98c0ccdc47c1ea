// The one scheduler of evaluations: stages 1-4 (extract -> lint -> compile -> static SASS) of
// every submitted candidate on a pool of compile threads, stages 5-8 on the GPU slots (one
// GpuStages per slot, e.g. one per GPU) while later candidates still compile. Every command
// reaches it through the engine (engine.hpp): `submit` for one candidate, `evaluate_pairs` for a
// list, `evaluate_stream` for a service's open-ended stream.
//
// Each GPU slot judges up to `gpu_concurrency` candidates at once (one thread, a "lane", each).
// With 1 (the default) a slot judges one candidate at a time and runs all of its GPU stages in
// one GpuStages::run. With more, the stages split at GpuStages::run_shared / run_exclusive: the
// shared ones (sanitize, correctness with the judge's references) of several candidates run
// together, as many as the bound and the GPU's free memory allow (each candidate's need is the
// GpuStages' estimate from its workloads' tensors); the exclusive ones (the proof, timing) hold
// the GPU alone, waiting for running shared phases to end, and no shared phase starts while one
// waits (a reader/writer gate per GPU). Any lane of any slot takes the next compiled candidate
// that its GPU can start, so no GPU idles while work is queued (docs/running.md, "Sizing").
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/compile/compile_cache.hpp"
#include "ptxbench/eval/candidate_input.hpp"
#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/gpu_stages.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {

// One candidate on one task: the unit of Scheduler::evaluate_pairs.
struct TaskCandidate {
  const task::Task* task = nullptr;  // never null; outlives the call
  CandidateInput input;
};

// One candidate of a stream (Scheduler::evaluate_stream): any task, any arch; `id` is the
// caller's, handed back to the sink with the verdict.
struct StreamCandidate {
  std::size_t id = 0;
  const task::Task* task = nullptr;  // never null; outlives the verdict
  arch::Arch arch = arch::Arch::kHopper;
  CandidateInput input;
};

// Blocks until the next candidate of a stream is known; nullopt ends the stream. Called one call
// at a time, and never again once it returned nullopt.
using CandidateSource = std::function<std::optional<StreamCandidate>()>;

// Called once per candidate, from any thread but never two calls at once, as soon as its
// verdict is final: `index` is its position in the caller's list. Not called for candidates
// left unjudged because ptxbench is stopping (util::stop_signal()).
using VerdictSink = std::function<void(std::size_t index, const Evaluation& evaluation)>;

// One candidate handed to Scheduler::submit.
struct Submission {
  const task::Task* task = nullptr;  // never null; outlives the verdict
  arch::Arch arch = arch::Arch::kHopper;
  CandidateInput input;
  // The final verdict, before the future gets it; never two calls at once (over every
  // submission). What it throws is what the future throws.
  std::function<void(const Evaluation&)> on_verdict;
  // Stages 1-4 are done (or abandoned): a compile thread is free again. Called exactly once.
  std::function<void()> on_compiled;
};

struct SchedulerOptions {
  std::filesystem::path work_dir;  // build artefacts (a temp dir when empty)
  std::chrono::seconds compile_timeout{180};
  // RLIMIT_AS of each nvcc (and the tools it starts); 0 = none.
  std::uint64_t compile_memory_limit_bytes = std::uint64_t{16} << 30;
  int jobs = 0;                // compile threads; 0 = all cores
  int gpu_concurrency = 1;     // candidates judged at once per GPU slot (see above)
  bool run_gpu_stages = true;  // false: stop after static SASS (NOT_RUN)
  // nvcc's runner (the compile sandbox); null: the scheduler's runner.
  std::shared_ptr<util::ProcessRunner> compile_runner;
  std::string sandbox = "off";  // what every record says of the sandbox (sandbox::describe)
  // Finished compiles kept and found again by (code, argv, nvcc version); null: none.
  std::shared_ptr<compile::CompileCache> compile_cache;
  // Laid over every submitted task's tolerance.rule (--correctness-rule); nullopt: each task's.
  std::optional<task::CorrectnessRule> correctness_rule;
  std::string profile;  // what every record says of the settings' profile
};

class Scheduler {
 public:
  // `gpu` may be null: GPU stages are then reported as not run.
  Scheduler(SchedulerOptions options, std::shared_ptr<util::ProcessRunner> runner,
            std::shared_ptr<GpuStages> gpu);
  // One GpuStages per slot (e.g. one per GPU), each judging up to options.gpu_concurrency
  // candidates at once. Null entries are dropped; none left: GPU stages are reported as not run.
  Scheduler(SchedulerOptions options, std::shared_ptr<util::ProcessRunner> runner,
            std::vector<std::shared_ptr<GpuStages>> gpu_slots);
  // Waits for every submitted candidate's verdict, then joins the threads.
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Queues one candidate. The future holds its verdict, or throws util::Stopped when ptxbench
  // stopped before the verdict was final (or what on_verdict threw).
  std::future<Evaluation> submit(Submission submission);

  // One candidate, blocking (util::Stopped as for submit).
  Evaluation evaluate(const task::Task& task, arch::Arch arch, const CandidateInput& input);
  std::vector<Evaluation> evaluate_many(const task::Task& task, arch::Arch arch,
                                        const std::vector<CandidateInput>& inputs,
                                        const VerdictSink& sink = {});
  // Candidates of different tasks (a file on a whole task family): the results in the order of
  // `pairs`. When ptxbench is stopping (util::stop_all_children) it throws util::Stopped once
  // every candidate is settled; the verdicts the sink got before stay valid.
  std::vector<Evaluation> evaluate_pairs(arch::Arch arch, const std::vector<TaskCandidate>& pairs,
                                         const VerdictSink& sink = {});
  // A service's stream: a candidate is taken from `next` whenever a compile thread is free, and
  // each verdict goes to `sink` (its index is the candidate's id). Returns once `next` ended the
  // stream and every candidate taken is judged. When ptxbench is stopping it throws
  // util::Stopped: the candidates taken whose verdicts the sink did not get have none.
  void evaluate_stream(const CandidateSource& next, const VerdictSink& sink);

  // Whether the GPU stages can run for `arch` here; `why` says why not (asked once per slot).
  bool gpu_stages_available(arch::Arch arch, std::string& why);
  // Has each GPU slot ask whether its GPU runs `arch` now, off the first verdict's path (the
  // worker's `info` call takes ~0.5 s).
  void prepare(arch::Arch arch);
  std::size_t gpu_slot_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ptxbench::eval
