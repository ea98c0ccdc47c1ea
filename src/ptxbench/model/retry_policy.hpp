// How often and how long to wait before retrying a failed model call: exponential backoff with
// jitter, never sooner than the service asked (Retry-After).
#pragma once
#include <chrono>
#include <optional>
#include <random>

namespace ptxbench::model {

struct RetryPolicy {
  int max_attempts = 6;  // requests in all, the first included
  std::chrono::milliseconds initial_backoff{2000};
  std::chrono::milliseconds max_backoff{std::chrono::seconds(120)};
  double multiplier = 2.0;
  double jitter = 0.25;  // each delay is scaled by a uniform factor in [1 - jitter, 1 + jitter]
  // A Retry-After longer than this is cut to it (a service asking for an hour is treated as
  // asking for this long; the attempt budget still ends the call).
  std::chrono::milliseconds max_retry_after{std::chrono::minutes(10)};
};

// Delay before the next attempt after `failed_attempts` failures (1 after the first).
// With a Retry-After the delay is at least that long (scaled up only by the jitter).
std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int failed_attempts,
                                        std::optional<std::chrono::milliseconds> retry_after,
                                        std::mt19937_64& random);

}  // namespace ptxbench::model
