// Evaluations for many trajectory threads at once: each call borrows an Evaluator from a pool
// (so no Evaluator is used by two threads), compiles run in parallel, and the GPU stages of all
// of them go through one GpuQueue (one candidate at a time per GPU).
#pragma once
#include <chrono>
#include <memory>
#include <mutex>
#include <semaphore>
#include <vector>

#include "ptxbench/agent/gpu_queue.hpp"
#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/eval/evaluator.hpp"
#include "ptxbench/sandbox/policy.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::agent {

class EvaluationService {
 public:
  // `gpus`: one GpuStages per GPU; empty (or run_gpu_stages false) evaluates stages 1-4 only.
  // At most `max_parallel` evaluations run at once (0: one per CPU core).
  EvaluationService(eval::EvaluatorOptions options, std::shared_ptr<util::ProcessRunner> runner,
                    std::vector<std::shared_ptr<eval::GpuStages>> gpus, int max_parallel = 0);
  EvaluationService(const EvaluationService&) = delete;
  EvaluationService& operator=(const EvaluationService&) = delete;

  eval::Evaluation evaluate(const task::Task& task, arch::Arch arch,
                            const eval::CandidateInput& input);
  // Whether the GPU stages can run for `arch` here; `why` says why not.
  bool gpu_stages_available(arch::Arch arch, std::string& why);
  // A function bound to this service (which must outlive it).
  EvaluateFn function();

 private:
  std::unique_ptr<eval::Evaluator> borrow();
  void give_back(std::unique_ptr<eval::Evaluator> evaluator);

  eval::EvaluatorOptions options_;
  std::shared_ptr<util::ProcessRunner> runner_;
  std::shared_ptr<GpuQueue> gpus_;
  std::counting_semaphore<> slots_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<eval::Evaluator>> idle_;
};

// The service of a run: a SystemProcessRunner, the build's default GPU stages (one GPU) when
// `gpu` is set, temporary work directories.
std::unique_ptr<EvaluationService> make_evaluation_service(
    bool gpu, int max_parallel, std::chrono::seconds compile_timeout,
    sandbox::Mode sandbox = sandbox::Mode::kStrict);

}  // namespace ptxbench::agent
