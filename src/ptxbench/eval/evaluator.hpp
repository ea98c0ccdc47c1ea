// The whole staged evaluation of candidates: extract -> lint -> compile -> static SASS ->
// (GPU stages where a GPU of the arch is present). Many candidates compile in parallel.
#pragma once
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

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

struct EvaluatorOptions {
  std::filesystem::path work_dir;  // build artefacts (a temp dir when empty)
  std::chrono::seconds compile_timeout{180};
  int jobs = 0;                // parallel compiles; 0 = all cores
  bool run_gpu_stages = true;  // false: stop after static SASS (NOT_RUN)
};

class Evaluator {
 public:
  // `gpu` may be null: GPU stages are then reported as not run.
  Evaluator(EvaluatorOptions options, std::shared_ptr<util::ProcessRunner> runner,
            std::shared_ptr<GpuStages> gpu);
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  Evaluation evaluate(const task::Task& task, arch::Arch arch, const CandidateInput& input);
  // Compiles all in parallel (CPU stages), then runs the GPU stages one after another.
  std::vector<Evaluation> evaluate_many(const task::Task& task, arch::Arch arch,
                                        const std::vector<CandidateInput>& inputs);
  // The same for candidates of different tasks (a file on a whole task family): the results
  // in the order of `pairs`.
  std::vector<Evaluation> evaluate_pairs(arch::Arch arch, const std::vector<TaskCandidate>& pairs);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The GpuStages of this build: the worker-process implementation when ptxbench-worker exists,
// else nullptr. `timed_workloads`: what the timing stage times besides the headline.
std::shared_ptr<GpuStages> make_default_gpu_stages(std::shared_ptr<util::ProcessRunner> runner,
                                                   TimedWorkloads timed_workloads = {});

}  // namespace ptxbench::eval
