// The whole staged evaluation of candidates: extract -> lint -> compile -> static SASS ->
// (GPU stages where a GPU of the arch is present). Candidates compile in parallel on the CPU
// while the GPU stages of those already compiled run on the GPU slots; each verdict is handed
// to the caller's sink as soon as it is known.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/compile/compile_cache.hpp"
#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/gpu_stages.hpp"
#include "ptxbench/eval/timing/timed_workloads.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {

struct CandidateInput {
  std::string text;         // a .cu file's content or a model response (Markdown)
  bool is_markdown = true;  // true: extract the last fenced block; false: take text whole
  std::string source_name;  // for the record ("reply.md", "turn 3")
};

// One candidate on one task: the unit of Evaluator::evaluate_pairs.
struct TaskCandidate {
  const task::Task* task = nullptr;  // never null; outlives the call
  CandidateInput input;
};

// One candidate of a stream (Evaluator::evaluate_stream): any task, any arch; `id` is the
// caller's, handed back to the sink with the verdict.
struct StreamCandidate {
  std::size_t id = 0;
  const task::Task* task = nullptr;  // never null; outlives the verdict
  arch::Arch arch = arch::Arch::kHopper;
  CandidateInput input;
};

// Blocks until the next candidate of a stream is known; nullopt ends the stream. Called from the
// compile threads one call at a time, and never again once it returned nullopt.
using CandidateSource = std::function<std::optional<StreamCandidate>()>;

struct EvaluatorOptions {
  std::filesystem::path work_dir;  // build artefacts (a temp dir when empty)
  std::chrono::seconds compile_timeout{180};
  // RLIMIT_AS of each nvcc (and the tools it starts); 0 = none.
  std::uint64_t compile_memory_limit_bytes = std::uint64_t{16} << 30;
  int jobs = 0;                // parallel compiles; 0 = all cores
  bool run_gpu_stages = true;  // false: stop after static SASS (NOT_RUN)
  // nvcc's runner (the compile sandbox); null: the evaluator's runner.
  std::shared_ptr<util::ProcessRunner> compile_runner;
  std::string sandbox = "off";  // what every record says of the sandbox (sandbox::describe)
  // Finished compiles kept and found again by (code, argv, nvcc version); null: none.
  std::shared_ptr<compile::CompileCache> compile_cache;
};

// Called once per candidate, from any thread but never two calls at once, as soon as its
// verdict is final: `index` is its position in the caller's list. Not called for candidates
// left unjudged because ptxbench is stopping (util::stop_signal()).
using VerdictSink = std::function<void(std::size_t index, const Evaluation& evaluation)>;

class Evaluator {
 public:
  // `gpu` may be null: GPU stages are then reported as not run.
  Evaluator(EvaluatorOptions options, std::shared_ptr<util::ProcessRunner> runner,
            std::shared_ptr<GpuStages> gpu);
  // One GpuStages per slot: the GPU stages of up to `gpu_slots.size()` candidates run at once,
  // each slot judging one candidate at a time (e.g. one slot per GPU). Null entries are dropped;
  // none left: GPU stages are reported as not run.
  Evaluator(EvaluatorOptions options, std::shared_ptr<util::ProcessRunner> runner,
            std::vector<std::shared_ptr<GpuStages>> gpu_slots);
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  Evaluation evaluate(const task::Task& task, arch::Arch arch, const CandidateInput& input);
  // Compiles in parallel (CPU stages) while the GPU slots judge what has compiled.
  std::vector<Evaluation> evaluate_many(const task::Task& task, arch::Arch arch,
                                        const std::vector<CandidateInput>& inputs,
                                        const VerdictSink& sink = {});
  // The same for candidates of different tasks (a file on a whole task family): the results
  // in the order of `pairs`. When ptxbench is stopping (util::stop_all_children) it throws
  // util::Stopped once the threads are joined; the verdicts the sink got before stay valid.
  std::vector<Evaluation> evaluate_pairs(arch::Arch arch, const std::vector<TaskCandidate>& pairs,
                                         const VerdictSink& sink = {});
  // The same pipeline for a service: a compile thread takes the next candidate from `next`
  // whenever it is free, while the GPU slots judge those compiled; each verdict goes to `sink`
  // (its index is the candidate's id). Returns once `next` ended the stream and every candidate
  // taken is judged. When ptxbench is stopping it throws util::Stopped once the threads are
  // joined: the candidates taken whose verdicts the sink did not get have none.
  void evaluate_stream(const CandidateSource& next, const VerdictSink& sink);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The GpuStages of this build: the worker-process implementation when ptxbench-worker exists,
// else nullptr.
std::shared_ptr<GpuStages> make_default_gpu_stages(std::shared_ptr<util::ProcessRunner> runner,
                                                   GpuStageChoices choices = {});

}  // namespace ptxbench::eval
