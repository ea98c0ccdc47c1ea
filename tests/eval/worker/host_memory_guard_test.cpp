#include "ptxbench/eval/worker/host_memory_guard.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

namespace ptxbench::eval::worker {
namespace {

constexpr std::uint64_t kMiB = 1u << 20;

TEST(HostMemoryGuard, ReadsTheResidentSet) {
  auto resident = resident_bytes();
  ASSERT_TRUE(resident.has_value());
  EXPECT_GT(*resident, 0u);
}

TEST(HostMemoryGuard, FiresWhenTouchedMemoryPassesTheBudget) {
  std::atomic<std::uint64_t> breached{0};
  HostMemoryGuard guard(
      64 * kMiB, [&](std::uint64_t resident) { breached = resident; },
      std::chrono::milliseconds(1));
  auto block = std::make_unique<char[]>(256 * kMiB);
  std::memset(block.get(), 1, 256 * kMiB);  // resident now, not just reserved
  for (int i = 0; i < 1000 && breached == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_GT(breached.load(), guard.limit_bytes());
}

TEST(HostMemoryGuard, QuietWithinTheBudget) {
  std::atomic<bool> breached{false};
  {
    HostMemoryGuard guard(
        512 * kMiB, [&](std::uint64_t) { breached = true; }, std::chrono::milliseconds(1));
    auto block = std::make_unique<char[]>(16 * kMiB);
    std::memset(block.get(), 1, 16 * kMiB);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(breached.load());
}

}  // namespace
}  // namespace ptxbench::eval::worker
