#include "ptxbench/eval/worker/host_memory_guard.hpp"

#include <unistd.h>

#include <fstream>

namespace ptxbench::eval::worker {

std::optional<std::uint64_t> resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return std::nullopt;
  return resident_pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

HostMemoryGuard::HostMemoryGuard(std::uint64_t budget_bytes,
                                 std::function<void(std::uint64_t)> on_breach,
                                 std::chrono::milliseconds period)
    : limit_(resident_bytes().value_or(0) + budget_bytes) {
  watcher_ = std::thread([this, period, on_breach = std::move(on_breach)] {
    std::unique_lock lock(mutex_);
    while (!stop_.wait_for(lock, period, [this] { return stopping_; })) {
      auto resident = resident_bytes();
      if (resident && *resident > limit_) {
        on_breach(*resident);
        return;
      }
    }
  });
}

HostMemoryGuard::~HostMemoryGuard() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  watcher_.join();
}

}  // namespace ptxbench::eval::worker
