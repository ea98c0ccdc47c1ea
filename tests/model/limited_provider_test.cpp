#include "ptxbench/model/limited_provider.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

namespace ptxbench::model {
namespace {

using std::chrono::milliseconds;

// Answers from a script of results, then repeats the last one.
class ScriptedProvider final : public Provider {
 public:
  explicit ScriptedProvider(std::deque<CallResult> script) : script_(std::move(script)) {}
  CallResult complete(const Conversation&, const CallContext&) override {
    std::lock_guard lock(mutex_);
    ++calls_;
    CallResult next = script_.front();
    if (script_.size() > 1) script_.pop_front();
    return next;
  }
  int calls() const { return calls_; }

 private:
  std::mutex mutex_;
  std::deque<CallResult> script_;
  std::atomic<int> calls_{0};
};

struct Harness {
  std::vector<milliseconds> sleeps;
  ScriptedProvider* inner = nullptr;
  std::unique_ptr<LimitedProvider> provider;

  Harness(std::deque<CallResult> script, RetryPolicy retry) {
    auto owned = std::make_unique<ScriptedProvider>(std::move(script));
    inner = owned.get();
    provider = std::make_unique<LimitedProvider>(
        std::move(owned), retry, RateLimits{.concurrency = 2},
        [this](milliseconds delay) { sleeps.push_back(delay); }, /*seed=*/42);
  }
  CallResult call() { return provider->complete({{"user", "hi"}}, CallContext{}); }
};

ProviderError retryable(std::optional<milliseconds> after = std::nullopt) {
  return ProviderError{
      .message = "HTTP 429", .retryable = true, .http_status = 429, .retry_after = after};
}

TEST(LimitedProvider, RetriesRetryableErrorsThenSucceeds) {
  Harness h({retryable(), retryable(), Reply{.content = "ok"}},
            RetryPolicy{.max_attempts = 5, .initial_backoff = milliseconds(100), .jitter = 0});
  CallResult result = h.call();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.reply().content, "ok");
  EXPECT_EQ(result.reply().attempts, 3);
  EXPECT_EQ(h.inner->calls(), 3);
  ASSERT_EQ(h.sleeps.size(), 2u);
  EXPECT_EQ(h.sleeps[0], milliseconds(100));
  EXPECT_EQ(h.sleeps[1], milliseconds(200));
}

TEST(LimitedProvider, WaitsWhatRetryAfterAsks) {
  Harness h({retryable(milliseconds(2500)), Reply{.content = "ok"}},
            RetryPolicy{.initial_backoff = milliseconds(10), .jitter = 0});
  ASSERT_TRUE(h.call().ok());
  ASSERT_EQ(h.sleeps.size(), 1u);
  EXPECT_EQ(h.sleeps[0], milliseconds(2500));
}

TEST(LimitedProvider, GivesUpAfterMaxAttempts) {
  Harness h({retryable()}, RetryPolicy{.max_attempts = 4, .initial_backoff = milliseconds(1)});
  CallResult result = h.call();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().attempts, 4);
  EXPECT_EQ(h.inner->calls(), 4);
  EXPECT_EQ(h.sleeps.size(), 3u);
}

TEST(LimitedProvider, DoesNotRetryPermanentOrExhaustedErrors) {
  Harness permanent({ProviderError{.message = "HTTP 401", .http_status = 401}}, RetryPolicy{});
  EXPECT_FALSE(permanent.call().ok());
  EXPECT_EQ(permanent.inner->calls(), 1);
  Harness exhausted({ProviderError{.message = "replay", .retryable = true, .exhausted = true}},
                    RetryPolicy{});
  EXPECT_FALSE(exhausted.call().ok());
  EXPECT_EQ(exhausted.inner->calls(), 1);
  EXPECT_TRUE(exhausted.sleeps.empty());
}

// Concurrency is limited per request: threads beyond the limit wait.
class SlowProvider final : public Provider {
 public:
  CallResult complete(const Conversation&, const CallContext&) override {
    int now = ++in_flight;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(milliseconds(20));
    --in_flight;
    return Reply{.content = "ok"};
  }
  std::atomic<int> in_flight{0}, most{0};
};

TEST(LimitedProvider, LimitsConcurrentRequests) {
  auto owned = std::make_unique<SlowProvider>();
  SlowProvider* slow = owned.get();
  LimitedProvider provider(std::move(owned), RetryPolicy{}, RateLimits{.concurrency = 2});
  std::vector<std::jthread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&provider] { EXPECT_TRUE(provider.complete({}, CallContext{}).ok()); });
  }
  threads.clear();
  EXPECT_EQ(slow->most.load(), 2);
}

}  // namespace
}  // namespace ptxbench::model
