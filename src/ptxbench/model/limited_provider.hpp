// Wraps a provider with the per-provider policy: a rate and concurrency limit on requests, and
// retries with backoff for errors that may pass (429, 5xx, timeouts, connection failures).
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <random>

#include "ptxbench/model/provider.hpp"
#include "ptxbench/model/rate_limiter.hpp"
#include "ptxbench/model/retry_policy.hpp"

namespace ptxbench::model {

class LimitedProvider final : public Provider {
 public:
  // Tests pass a sleeper that records delays instead of waiting.
  using Sleeper = std::function<void(std::chrono::milliseconds)>;

  LimitedProvider(std::unique_ptr<Provider> inner, RetryPolicy retry, RateLimits limits,
                  Sleeper sleeper = {}, std::uint64_t seed = std::random_device{}());

  // Reply::attempts / ProviderError::attempts count every request made.
  CallResult complete(const Conversation& conversation, const CallContext& context) override;

 private:
  std::chrono::milliseconds next_delay(int failed_attempts,
                                       std::optional<std::chrono::milliseconds> retry_after);

  std::unique_ptr<Provider> inner_;
  RetryPolicy retry_;
  RateLimiter limiter_;
  Sleeper sleeper_;
  std::mutex random_mutex_;
  std::mt19937_64 random_;
};

}  // namespace ptxbench::model
