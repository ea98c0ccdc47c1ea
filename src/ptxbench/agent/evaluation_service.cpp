#include <cstdio>

#include "ptxbench/agent/evaluation_service.hpp"
#include "ptxbench/sandbox/evaluation_sandbox.hpp"

#include <algorithm>
#include <thread>

#include "ptxbench/eval/gpu_absence.hpp"

namespace ptxbench::agent {

EvaluationService::EvaluationService(eval::EvaluatorOptions options,
                                     std::shared_ptr<util::ProcessRunner> runner,
                                     std::vector<std::shared_ptr<eval::GpuStages>> gpus,
                                     int max_parallel)
    : options_(std::move(options)),
      runner_(std::move(runner)),
      gpus_(std::make_shared<GpuQueue>(std::move(gpus))),
      slots_(max_parallel > 0
                 ? max_parallel
                 : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))) {}

std::unique_ptr<eval::Evaluator> EvaluationService::borrow() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      auto evaluator = std::move(idle_.back());
      idle_.pop_back();
      return evaluator;
    }
  }
  std::shared_ptr<eval::GpuStages> gpu;
  if (options_.run_gpu_stages && gpus_->size() > 0) gpu = gpus_;
  return std::make_unique<eval::Evaluator>(options_, runner_, gpu);
}

void EvaluationService::give_back(std::unique_ptr<eval::Evaluator> evaluator) {
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(evaluator));
}

eval::Evaluation EvaluationService::evaluate(const task::Task& task, arch::Arch arch,
                                             const eval::CandidateInput& input) {
  slots_.acquire();
  struct Release {
    std::counting_semaphore<>& slots;
    ~Release() { slots.release(); }
  } release{slots_};
  auto evaluator = borrow();
  eval::Evaluation evaluation = evaluator->evaluate(task, arch, input);
  give_back(std::move(evaluator));
  return evaluation;
}

bool EvaluationService::gpu_stages_available(arch::Arch arch, std::string& why) {
  if (!options_.run_gpu_stages) {
    why = "GPU stages disabled";
    return false;
  }
  if (gpus_->size() == 0) {
    why = eval::missing_worker_reason();
    return false;
  }
  if (gpus_->available(arch, why)) return true;
  why = eval::explain_gpu_absence(std::move(why));
  return false;
}

EvaluateFn EvaluationService::function() {
  return [this](const task::Task& task, arch::Arch arch, const eval::CandidateInput& input) {
    return evaluate(task, arch, input);
  };
}

std::unique_ptr<EvaluationService> make_evaluation_service(bool gpu, int max_parallel,
                                                           std::chrono::seconds compile_timeout,
                                                           sandbox::Mode sandbox) {
  // Each evaluator shows its own artefact folder to the worker's sandbox (Evaluator's constructor).
  auto box =
      sandbox::make_evaluation_sandbox(sandbox, std::make_shared<util::SystemProcessRunner>(), {});
  if (box.description != "full" && box.description != "off")
    std::fprintf(stderr, "ptxbench: WARNING: sandbox %s\n", box.description.c_str());
  std::shared_ptr<util::ProcessRunner> runner = box.worker;
  std::vector<std::shared_ptr<eval::GpuStages>> gpus;
  if (gpu) {
    if (auto stages = eval::make_default_gpu_stages(runner)) gpus.push_back(std::move(stages));
  }
  eval::EvaluatorOptions options{.compile_timeout = compile_timeout,
                                 .run_gpu_stages = gpu,
                                 .compile_runner = box.compiler,
                                 .sandbox = box.description};
  return std::make_unique<EvaluationService>(options, runner, std::move(gpus), max_parallel);
}

}  // namespace ptxbench::agent
