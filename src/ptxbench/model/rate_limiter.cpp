#include "ptxbench/model/rate_limiter.hpp"

#include <algorithm>
#include <thread>

#include "ptxbench/util/check.hpp"

namespace ptxbench::model {

RateLimiter::RateLimiter(RateLimits limits) : limits_(limits) {
  PTXBENCH_CHECK(limits_.concurrency >= 1, "concurrency must be at least 1");
  PTXBENCH_CHECK(limits_.requests_per_minute >= 0, "requests_per_minute must not be negative");
  limits_.burst = std::max(1, limits_.burst);
  tokens_ = limits_.burst;
  refilled_at_ = Clock::now();
}

RateLimiter::Permit::~Permit() {
  if (owner_ != nullptr) owner_->release();
}

RateLimiter::Permit RateLimiter::acquire() {
  std::unique_lock lock(mutex_);
  slot_freed_.wait(lock, [this] { return in_flight_ < limits_.concurrency; });
  ++in_flight_;
  if (limits_.requests_per_minute > 0) {
    const double per_second = limits_.requests_per_minute / 60.0;
    // The slot is held while waiting for a token, so waiters are served in slot order and
    // the mutex is released during the sleep.
    while (true) {
      auto now = Clock::now();
      double elapsed = std::chrono::duration<double>(now - refilled_at_).count();
      tokens_ = std::min<double>(limits_.burst, tokens_ + elapsed * per_second);
      refilled_at_ = now;
      if (tokens_ >= 1.0) {
        tokens_ -= 1.0;
        break;
      }
      auto wait = std::chrono::duration<double>((1.0 - tokens_) / per_second);
      lock.unlock();
      std::this_thread::sleep_for(wait);
      lock.lock();
    }
  }
  return Permit(this);
}

void RateLimiter::release() {
  {
    std::lock_guard lock(mutex_);
    --in_flight_;
  }
  slot_freed_.notify_one();
}

}  // namespace ptxbench::model
