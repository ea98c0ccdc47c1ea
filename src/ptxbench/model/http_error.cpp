#include "ptxbench/model/http_error.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "ptxbench/util/utf8.hpp"

namespace ptxbench::model {
namespace {

constexpr std::size_t kBodyExcerptBytes = 300;

std::string excerpt(std::string_view body) {
  std::string text(util::utf8_prefix(body, kBodyExcerptBytes));
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (body.size() > kBodyExcerptBytes) text += "...";
  return text;
}

// Both APIs answer errors as {"error": {"message": ...}} (Anthropic adds "type").
std::string service_message(std::string_view body) {
  auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_object() && json.contains("error")) {
    const auto& error = json["error"];
    if (error.is_object() && error.contains("message") && error["message"].is_string()) {
      std::string message = error["message"].get<std::string>();
      if (error.contains("type") && error["type"].is_string()) {
        message = error["type"].get<std::string>() + ": " + message;
      }
      return message;
    }
    if (error.is_string()) return error.get<std::string>();
  }
  return excerpt(body);
}

bool retryable_status(int status) {
  return status == 408 || status == 409 || status == 425 || status == 429 || status >= 500;
}

}  // namespace

std::optional<ProviderError> http_failure(const HttpResponse& response) {
  if (!response.transport_ok()) {
    return ProviderError{.message = response.timed_out
                                        ? fmt::format("request timed out after {:.1f} s ({})",
                                                      response.seconds, response.transport_error)
                                        : "request failed: " + response.transport_error,
                         .retryable = true};
  }
  if (response.status >= 200 && response.status < 300) return std::nullopt;
  return ProviderError{
      .message = fmt::format("HTTP {}: {}", response.status, service_message(response.body)),
      .retryable = retryable_status(response.status),
      .http_status = response.status,
      .retry_after = retry_after_of(response)};
}

ProviderError malformed_reply(const HttpResponse& response, std::string_view what) {
  return ProviderError{
      .message = fmt::format("unusable reply ({}): {}", what, excerpt(response.body)),
      .retryable = true,
      .http_status = response.status};
}

}  // namespace ptxbench::model
