// A GpuStages fake standing for one GPU's worker: each run takes `gpu_time`, records which
// worker ran it, and judges the candidate from its source hash alone (as a real worker judges
// from the candidate and task, never from which GPU it is).
#pragma once
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "ptxbench/eval/gpu_stages.hpp"

namespace ptxbench::testing {

class FakeGpuWorker final : public eval::GpuStages {
 public:
  FakeGpuWorker(int id, std::chrono::milliseconds gpu_time) : id_(id), gpu_time_(gpu_time) {}
  bool available(arch::Arch, std::string&) override { return true; }
  void run(const task::Task&, const eval::CompiledCandidate& candidate,
           eval::Evaluation& e) override {
    if (busy_.exchange(true)) overlapped_ = true;  // two candidates on one GPU at once
    std::this_thread::sleep_for(gpu_time_);
    const bool even = std::hash<std::string>{}(candidate.source_hash) % 2 == 0;
    e.verdict = even ? eval::Verdict::kPassed : eval::Verdict::kIncorrectNumerical;
    e.toolchain["gpu_worker"] = std::to_string(id_);
    ++runs_;
    busy_ = false;
  }
  int runs() const { return runs_; }
  bool overlapped() const { return overlapped_; }

 private:
  int id_;
  std::chrono::milliseconds gpu_time_;
  std::atomic<bool> busy_{false}, overlapped_{false};
  std::atomic<int> runs_{0};
};

}  // namespace ptxbench::testing
