// Fakes for the service: an evaluation function that can be held at a gate and counts what it
// evaluated, and the clients of the tests.
#pragma once
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

#include "../agent/fakes.hpp"
#include "ptxbench/serve/client_tokens.hpp"

namespace ptxbench::testing {

// Evaluates like fake_evaluate (PASS <speedup> in the code block); while closed, every
// evaluation waits at the gate.
class GatedEvaluator {
 public:
  explicit GatedEvaluator(bool open = true) : open_(open) {}
  agent::EvaluateFn function() {
    return [this](const task::Task& task, arch::Arch arch, const eval::CandidateInput& input) {
      std::unique_lock lock(mutex_);
      ++started_;
      changed_.notify_all();
      changed_.wait(lock, [&] { return open_; });
      ++evaluated_[input.text];
      lock.unlock();
      return fake_evaluate(task, arch, input);
    };
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  // Waits until `count` evaluations have started (true) or a second passed.
  bool wait_started(int count) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] { return started_ >= count; });
  }
  std::map<std::string, int> evaluated() const {
    std::lock_guard lock(mutex_);
    return evaluated_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool open_;
  int started_ = 0;
  std::map<std::string, int> evaluated_;  // candidate text -> times evaluated
};

inline const serve::Client kTrainer{
    .name = "trainer", .token = "trainer-token-0123456789", .max_in_flight = 8};
inline const serve::Client kAgent{
    .name = "agent", .token = "agent-token-0123456789", .max_in_flight = 2};

inline std::string pass_reply(double speedup, int tag = 0) {
  return "```cuda\nPASS " + std::to_string(speedup) + "\n// " + std::to_string(tag) + "\n```\n";
}

}  // namespace ptxbench::testing
