// A host-memory budget for a process that runs untrusted code next to CUDA. Address-space and
// data-segment limits do not work there: CUDA reserves very large virtual ranges (RLIMIT_AS made
// cudaMallocAsync fail in a correct candidate), and on the H200 a 64 GiB allocation went through
// an RLIMIT_DATA of the data segment plus 16 GiB. What costs the machine is resident memory, so
// a watcher thread samples this process's resident set and reports when it grows past the
// resident size at the start plus the budget (the worker then ends the process with its reply).
// Invariant: the watcher thread runs exactly while the object lives.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace ptxbench::eval::worker {

// Resident set size of this process (bytes), from /proc/self/statm.
std::optional<std::uint64_t> resident_bytes();

class HostMemoryGuard {
 public:
  // `on_breach(resident_bytes)` is called at most once, from the watcher thread.
  HostMemoryGuard(std::uint64_t budget_bytes, std::function<void(std::uint64_t)> on_breach,
                  std::chrono::milliseconds period = std::chrono::milliseconds(5));
  HostMemoryGuard(const HostMemoryGuard&) = delete;
  HostMemoryGuard& operator=(const HostMemoryGuard&) = delete;
  ~HostMemoryGuard();

  std::uint64_t limit_bytes() const { return limit_; }

 private:
  std::uint64_t limit_ = 0;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::thread watcher_;
};

}  // namespace ptxbench::eval::worker
