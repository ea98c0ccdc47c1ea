#include "ptxbench/model/retry_policy.hpp"

#include <gtest/gtest.h>

namespace ptxbench::model {
namespace {

using std::chrono::milliseconds;

TEST(RetryPolicy, GrowsExponentiallyWithinJitterAndCaps) {
  RetryPolicy policy{.initial_backoff = milliseconds(100),
                     .max_backoff = milliseconds(1000),
                     .multiplier = 2.0,
                     .jitter = 0.25};
  std::mt19937_64 random(1);
  for (int trial = 0; trial < 50; ++trial) {
    for (int failed = 1; failed <= 6; ++failed) {
      double base = std::min(1000.0, 100.0 * (1 << (failed - 1)));
      auto delay = backoff_delay(policy, failed, std::nullopt, random);
      EXPECT_GE(delay.count(), static_cast<long>(base * 0.75) - 1) << "failed " << failed;
      EXPECT_LE(delay.count(), static_cast<long>(base * 1.25) + 1) << "failed " << failed;
    }
  }
}

TEST(RetryPolicy, JitterSpreadsDelays) {
  RetryPolicy policy{.initial_backoff = milliseconds(1000), .jitter = 0.5};
  std::mt19937_64 random(7);
  auto first = backoff_delay(policy, 1, std::nullopt, random);
  bool differs = false;
  for (int i = 0; i < 20 && !differs; ++i)
    differs = backoff_delay(policy, 1, std::nullopt, random) != first;
  EXPECT_TRUE(differs);
}

TEST(RetryPolicy, RetryAfterIsHonouredNeverShortened) {
  RetryPolicy policy{.initial_backoff = milliseconds(10), .jitter = 0.2};
  std::mt19937_64 random(3);
  for (int i = 0; i < 50; ++i) {
    auto delay = backoff_delay(policy, 1, milliseconds(3000), random);
    EXPECT_GE(delay.count(), 3000);
    EXPECT_LE(delay.count(), 3601);
  }
}

TEST(RetryPolicy, RetryAfterIsCappedAtTheConfiguredMaximum) {
  RetryPolicy policy{.jitter = 0, .max_retry_after = milliseconds(5000)};
  std::mt19937_64 random(3);
  EXPECT_EQ(backoff_delay(policy, 1, milliseconds(3'600'000), random).count(), 5000);
}

}  // namespace
}  // namespace ptxbench::model
