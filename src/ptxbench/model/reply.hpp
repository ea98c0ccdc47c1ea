// What one model call gives back: the reply, or an error that says whether retrying may help.
// Provider errors are values: a model service failing is not a bug of ptxbench.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "ptxbench/util/check.hpp"

namespace ptxbench::model {

// The default cap on one reply (content and reasoning together): a kernel file is a few dozen
// kilobytes; a reply of megabytes is an error, not a turn to store and resend.
inline constexpr std::size_t kDefaultMaxReplyBytes = 4u << 20;
// What a transport (an HTTP body, a command's stdout) may carry for such a reply: JSON escaping
// and the envelope around it take room too.
constexpr std::size_t transport_cap_bytes(std::size_t max_reply_bytes) {
  return 2 * max_reply_bytes + (64u << 10);
}

struct Usage {
  std::optional<std::int64_t> prompt_tokens;
  std::optional<std::int64_t> completion_tokens;  // includes reasoning tokens where the API does
  std::optional<std::int64_t> reasoning_tokens;
};

struct Reply {
  std::string content;                           // the answer text (may hold no code)
  std::optional<std::string> reasoning_content;  // thinking / reasoning text when returned
  Usage usage;
  double latency_s = 0;       // of the request that succeeded
  std::string finish_reason;  // "stop", "length", "end_turn", ... as the API says it
  std::string model;          // the model name the service reports, when it does
  std::string source;         // where a replayed reply came from (a file), else empty
  int attempts = 1;           // requests made, retries included
};

struct ProviderError {
  std::string message;
  bool retryable = false;  // 429, 5xx, timeouts, connection errors, malformed replies
  bool exhausted = false;  // a replay has no reply for this turn: the conversation ends
  std::optional<int> http_status;
  std::optional<std::chrono::milliseconds> retry_after;  // what the service asked us to wait
  int attempts = 1;
};

class CallResult {
 public:
  CallResult(Reply reply) : state_(std::move(reply)) {}  // NOLINT(google-explicit-constructor)
  CallResult(ProviderError error)
      : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<Reply>(state_); }
  Reply& reply() {
    PTXBENCH_CHECK(ok(), "reply() of a failed call");
    return std::get<Reply>(state_);
  }
  const Reply& reply() const {
    PTXBENCH_CHECK(ok(), "reply() of a failed call");
    return std::get<Reply>(state_);
  }
  ProviderError& error() {
    PTXBENCH_CHECK(!ok(), "error() of a successful call");
    return std::get<ProviderError>(state_);
  }
  const ProviderError& error() const {
    PTXBENCH_CHECK(!ok(), "error() of a successful call");
    return std::get<ProviderError>(state_);
  }

 private:
  std::variant<Reply, ProviderError> state_;
};

}  // namespace ptxbench::model
