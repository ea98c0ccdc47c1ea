#include "ptxbench/model/rate_limiter.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace ptxbench::model {
namespace {

TEST(RateLimiter, NeverExceedsTheConcurrencyLimit) {
  RateLimiter limiter(RateLimits{.concurrency = 3});
  std::atomic<int> in_flight{0}, most{0};
  std::vector<std::jthread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        auto permit = limiter.acquire();
        int now = ++in_flight;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        --in_flight;
      }
    });
  }
  threads.clear();
  EXPECT_EQ(in_flight.load(), 0);
  EXPECT_LE(most.load(), 3);
  EXPECT_GE(most.load(), 2) << "threads never overlapped: the test proves nothing";
}

TEST(RateLimiter, SpacesRequestsAfterTheBurst) {
  // 600 per minute = one per 100 ms; a burst of 2 starts at once, the next three wait.
  RateLimiter limiter(RateLimits{.requests_per_minute = 600, .burst = 2, .concurrency = 10});
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) auto permit = limiter.acquire();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(seconds, 0.27);
  EXPECT_LT(seconds, 5.0);
}

TEST(RateLimiter, UnlimitedRateDoesNotWait) {
  RateLimiter limiter(RateLimits{.concurrency = 1});
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) auto permit = limiter.acquire();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

}  // namespace
}  // namespace ptxbench::model
