// Turning an HTTP exchange that did not succeed into a ProviderError: which failures are worth
// retrying, what the service asked us to wait, and the service's own error message.
#pragma once
#include <optional>

#include "ptxbench/model/http_client.hpp"
#include "ptxbench/model/reply.hpp"

namespace ptxbench::model {

// nullopt for a 2xx response; otherwise the error. Retryable: no response (timeout, connection
// refused or reset), 408, 409, 425, 429, and every 5xx (Anthropic's 529 "overloaded" included).
std::optional<ProviderError> http_failure(const HttpResponse& response);

// For a 2xx body that cannot be used (malformed JSON, no choices): retryable, since servers
// under load do send truncated or empty replies.
ProviderError malformed_reply(const HttpResponse& response, std::string_view what);

}  // namespace ptxbench::model
