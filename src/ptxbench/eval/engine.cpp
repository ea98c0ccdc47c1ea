#include "ptxbench/eval/engine.hpp"

#include <fmt/format.h>

#include "ptxbench/eval/gpu_slots.hpp"
#include "ptxbench/eval/seeded_gpu_stages.hpp"
#include "ptxbench/sandbox/evaluation_sandbox.hpp"

namespace ptxbench::eval {

Engine::Engine(EvaluationSettings settings, std::string sandbox_description,
               std::unique_ptr<Scheduler> scheduler)
    : settings_(std::move(settings)),
      sandbox_(std::move(sandbox_description)),
      scheduler_(std::move(scheduler)) {}

std::optional<std::string> Engine::warning() const {
  if (sandbox_ == "full" || sandbox_ == "off") return std::nullopt;
  return "sandbox " + sandbox_;
}

std::future<Evaluation> Engine::submit(const task::Task& task, arch::Arch arch,
                                       CandidateInput input) {
  return scheduler_->submit({.task = &task, .arch = arch, .input = std::move(input)});
}

Evaluation Engine::evaluate(const task::Task& task, arch::Arch arch, const CandidateInput& input) {
  return scheduler_->evaluate(task, arch, input);
}

std::function<Evaluation(const task::Task&, arch::Arch, const CandidateInput&)> Engine::function() {
  return [this](const task::Task& task, arch::Arch arch, const CandidateInput& input) {
    return evaluate(task, arch, input);
  };
}

std::vector<Evaluation> Engine::evaluate_pairs(arch::Arch arch,
                                               const std::vector<TaskCandidate>& pairs,
                                               const VerdictSink& sink) {
  return scheduler_->evaluate_pairs(arch, pairs, sink);
}

void Engine::evaluate_stream(const CandidateSource& next, const VerdictSink& sink) {
  scheduler_->evaluate_stream(next, sink);
}

bool Engine::gpu_stages_available(arch::Arch arch, std::string& why) {
  return scheduler_->gpu_stages_available(arch, why);
}

util::Expected<std::shared_ptr<Engine>> open_engine(const EvaluationSettings& settings,
                                                    EngineSeams seams) {
  if (auto problem = settings_problem(settings)) return util::make_error(*problem);
  auto processes =
      seams.processes ? seams.processes : std::make_shared<util::SystemProcessRunner>();
  // The scheduler shows its artefact folder to the worker's sandbox (read-only).
  auto box = sandbox::make_evaluation_sandbox(settings.sandbox, processes, {},
                                              settings.compile_memory_limit_bytes);
  if (!box.usable) {
    return util::make_error(
        fmt::format("--sandbox strict: the sandbox cannot be set up here ({}); see "
                    "docs/sandbox.md, or choose --sandbox best-effort|off",
                    box.description));
  }
  std::shared_ptr<util::ProcessRunner> worker_runner = box.worker;
  std::vector<std::shared_ptr<GpuStages>> slots;  // one per GPU of --gpus
  if (settings.gpu) {
    auto made = seams.gpu_slots ? seams.gpu_slots(worker_runner, settings.judge)
                                : gpu_slots(settings.gpus, worker_runner, settings.judge);
    if (!made) return made.error();
    slots = with_seeds_and_cache(std::move(*made), settings);
  }
  auto scheduler = std::make_unique<Scheduler>(
      SchedulerOptions{
          .work_dir = settings.keep_artifacts,
          .compile_timeout = settings.compile_timeout,
          .compile_memory_limit_bytes = settings.compile_memory_limit_bytes,
          .jobs = settings.parallel,
          .gpu_concurrency = settings.gpu_concurrency,
          .run_gpu_stages = settings.gpu,
          .compile_runner = box.compiler,
          .sandbox = box.description,
          .compile_cache = settings.compile_cache.empty()
                               ? nullptr
                               : std::make_shared<compile::CompileCache>(
                                     settings.compile_cache, compile::kCompileCacheBytes),
          .correctness_rule = settings.correctness_rule,
          .profile = settings.profile},
      worker_runner, std::move(slots));
  // The GPU probe (each worker's `info` call, asked once and kept) starts now, off the first
  // verdict's path; any arch asks it.
  if (settings.gpu) scheduler->prepare(arch::Arch::kHopper);
  return std::make_shared<Engine>(settings, box.description, std::move(scheduler));
}

}  // namespace ptxbench::eval
