#include "ptxbench/model/retry_policy.hpp"

#include <algorithm>
#include <cmath>

namespace ptxbench::model {

std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int failed_attempts,
                                        std::optional<std::chrono::milliseconds> retry_after,
                                        std::mt19937_64& random) {
  using Ms = std::chrono::milliseconds;
  double jitter = std::clamp(policy.jitter, 0.0, 1.0);
  if (retry_after) {
    // Honour the service: never earlier, spread a little later so that waiting clients do not
    // all return at the same instant.
    Ms asked = std::clamp(*retry_after, Ms(0), policy.max_retry_after);
    std::uniform_real_distribution<double> spread(1.0, 1.0 + jitter);
    return Ms(static_cast<Ms::rep>(std::ceil(static_cast<double>(asked.count()) * spread(random))));
  }
  double exponent = std::max(0, failed_attempts - 1);
  double base = static_cast<double>(policy.initial_backoff.count()) *
                std::pow(std::max(1.0, policy.multiplier), exponent);
  base = std::min(base, static_cast<double>(policy.max_backoff.count()));
  std::uniform_real_distribution<double> spread(1.0 - jitter, 1.0 + jitter);
  return Ms(static_cast<Ms::rep>(std::llround(base * spread(random))));
}

}  // namespace ptxbench::model
