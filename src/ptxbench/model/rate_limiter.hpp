// Per-provider limits on model calls: at most `concurrency` requests in flight (a semaphore)
// and at most `requests_per_minute` started (a token bucket holding up to `burst` requests).
#pragma once
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace ptxbench::model {

struct RateLimits {
  double requests_per_minute = 0;  // 0: no rate limit
  int burst = 1;                   // requests that may start back to back after a quiet spell
  int concurrency = 4;             // requests in flight at once
};

class RateLimiter {
 public:
  explicit RateLimiter(RateLimits limits);
  RateLimiter(const RateLimiter&) = delete;
  RateLimiter& operator=(const RateLimiter&) = delete;

  // Holds one concurrency slot from acquire() until destruction.
  class Permit {
   public:
    explicit Permit(RateLimiter* owner) : owner_(owner) {}
    Permit(Permit&& other) noexcept : owner_(other.owner_) { other.owner_ = nullptr; }
    Permit& operator=(Permit&&) = delete;
    Permit(const Permit&) = delete;
    Permit& operator=(const Permit&) = delete;
    ~Permit();

   private:
    RateLimiter* owner_;
  };

  // Blocks until a slot is free and the bucket holds a token.
  Permit acquire();
  const RateLimits& limits() const { return limits_; }

 private:
  void release();

  using Clock = std::chrono::steady_clock;
  RateLimits limits_;
  std::mutex mutex_;
  std::condition_variable slot_freed_;
  int in_flight_ = 0;
  double tokens_ = 0;
  Clock::time_point refilled_at_;
};

}  // namespace ptxbench::model
