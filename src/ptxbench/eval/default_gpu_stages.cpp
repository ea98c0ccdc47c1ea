// The GpuStages of this build: the worker-process implementation, when a ptxbench-worker
// executable can be found ($PTXBENCH_WORKER, beside the running executable, then $PATH).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "ptxbench/eval/evaluator.hpp"
#include "ptxbench/eval/worker/worker_gpu_stages.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {
namespace {

constexpr const char* kWorkerName = "ptxbench-worker";

bool executable(const std::filesystem::path& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0;
}

std::optional<std::filesystem::path> find_worker() {
  if (const char* env = std::getenv("PTXBENCH_WORKER"); env != nullptr && executable(env)) {
    return std::filesystem::path(env);
  }
  std::error_code error;
  auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error && executable(self.parent_path() / kWorkerName))
    return self.parent_path() / kWorkerName;
  return util::find_in_path(kWorkerName);
}

}  // namespace

std::shared_ptr<GpuStages> make_default_gpu_stages(std::shared_ptr<util::ProcessRunner> runner,
                                                   GpuStageChoices choices) {
  auto worker = find_worker();
  if (!worker) return nullptr;
  return std::make_shared<worker::WorkerGpuStages>(
      worker::WorkerGpuStagesOptions{.worker = *worker,
                                     .racecheck_timeout = choices.racecheck_timeout,
                                     .timed_workloads = std::move(choices.timed_workloads),
                                     .unseen = choices.unseen,
                                     .input_seed = choices.input_seed},
      std::move(runner));
}

}  // namespace ptxbench::eval
