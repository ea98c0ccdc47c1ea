#include "ptxbench/model/limited_provider.hpp"

#include <thread>

#include "ptxbench/util/check.hpp"

namespace ptxbench::model {

LimitedProvider::LimitedProvider(std::unique_ptr<Provider> inner, RetryPolicy retry,
                                 RateLimits limits, Sleeper sleeper, std::uint64_t seed)
    : inner_(std::move(inner)),
      retry_(retry),
      limiter_(limits),
      sleeper_(std::move(sleeper)),
      random_(seed) {
  PTXBENCH_CHECK(inner_ != nullptr, "no provider to wrap");
  PTXBENCH_CHECK(retry_.max_attempts >= 1, "max_attempts must be at least 1");
  if (!sleeper_)
    sleeper_ = [](std::chrono::milliseconds delay) { std::this_thread::sleep_for(delay); };
}

std::chrono::milliseconds LimitedProvider::next_delay(
    int failed_attempts, std::optional<std::chrono::milliseconds> retry_after) {
  std::lock_guard lock(random_mutex_);
  return backoff_delay(retry_, failed_attempts, retry_after, random_);
}

CallResult LimitedProvider::complete(const Conversation& conversation, const CallContext& context) {
  for (int attempt = 1;; ++attempt) {
    std::optional<CallResult> result;
    {
      auto permit = limiter_.acquire();
      result.emplace(inner_->complete(conversation, context));
    }
    if (result->ok()) {
      result->reply().attempts = attempt;
      return std::move(*result);
    }
    ProviderError& error = result->error();
    error.attempts = attempt;
    if (!error.retryable || error.exhausted || attempt >= retry_.max_attempts) {
      return std::move(*result);
    }
    sleeper_(next_delay(attempt, error.retry_after));
  }
}

}  // namespace ptxbench::model
