#include "ptxbench/agent/gpu_queue.hpp"

#include <algorithm>

#include "ptxbench/util/check.hpp"

namespace ptxbench::agent {

GpuQueue::GpuQueue(std::vector<std::shared_ptr<eval::GpuStages>> gpus) {
  for (auto& gpu : gpus) {
    if (gpu) gpus_.push_back(std::move(gpu));
  }
  busy_.assign(gpus_.size(), false);
}

bool GpuQueue::available(arch::Arch arch, std::string& why) {
  if (gpus_.empty()) {
    why = "no GPU stages in this build or on this machine";
    return false;
  }
  // Asking is cheap and side-effect free, but implementations need not be thread-safe.
  std::lock_guard lock(mutex_);
  std::string reasons;
  for (auto& gpu : gpus_) {
    std::string reason;
    if (gpu->available(arch, reason)) return true;
    if (reasons.empty()) reasons = reason;
  }
  why = reasons;
  return false;
}

void GpuQueue::run(const task::Task& task, const eval::CompiledCandidate& candidate,
                   eval::Evaluation& evaluation) {
  PTXBENCH_CHECK(!gpus_.empty(), "GPU stages run without a GPU");
  std::size_t slot = 0;
  {
    std::unique_lock lock(mutex_);
    freed_.wait(lock,
                [this] { return std::find(busy_.begin(), busy_.end(), false) != busy_.end(); });
    slot = static_cast<std::size_t>(std::find(busy_.begin(), busy_.end(), false) - busy_.begin());
    busy_[slot] = true;
  }
  struct Release {
    GpuQueue* queue;
    std::size_t slot;
    ~Release() {
      {
        std::lock_guard lock(queue->mutex_);
        queue->busy_[slot] = false;
      }
      queue->freed_.notify_one();
    }
  } release{this, slot};
  gpus_[slot]->run(task, candidate, evaluation);
}

}  // namespace ptxbench::agent
