// GPU stages one candidate at a time per GPU: wraps the GpuStages of each GPU and hands every
// run to a free one, while compiles (stages 1-4) of other candidates go on in parallel.
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "ptxbench/eval/gpu_stages.hpp"

namespace ptxbench::agent {

class GpuQueue final : public eval::GpuStages {
 public:
  // One entry per GPU; null entries are ignored. An empty queue reports no GPU available.
  explicit GpuQueue(std::vector<std::shared_ptr<eval::GpuStages>> gpus);

  bool available(arch::Arch arch, std::string& why) override;
  void run(const task::Task& task, const eval::CompiledCandidate& candidate,
           eval::Evaluation& evaluation) override;

  std::size_t size() const { return gpus_.size(); }

 private:
  std::vector<std::shared_ptr<eval::GpuStages>> gpus_;
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<bool> busy_;
};

}  // namespace ptxbench::agent
