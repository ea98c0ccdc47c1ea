#include "ptxbench/serve/route_helpers.hpp"

#include <fmt/format.h>

namespace ptxbench::serve {
namespace {

// Retry-After of a refusal: a full queue frees up in seconds; a draining service is back once
// it has been restarted.
constexpr int kRetryFullSeconds = 5;
constexpr int kRetryDrainingSeconds = 30;

}  // namespace

void reply_json(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

void reply_error(httplib::Response& res, int status, const std::string& message) {
  if (status == 429) res.set_header("Retry-After", std::to_string(kRetryFullSeconds));
  if (status == 503) res.set_header("Retry-After", std::to_string(kRetryDrainingSeconds));
  reply_json(res, status, {{"error", message}});
}

void reply_unauthorized(httplib::Response& res) {
  res.set_header("WWW-Authenticate", "Bearer");
  reply_error(res, 401, "Authorization: expected 'Bearer TOKEN' with a token of the service");
}

std::string too_large(const ApiContext& api) {
  return fmt::format("body: larger than the service accepts ({} bytes, --max-body-bytes)",
                     api.max_body_bytes);
}

int status_of(SubmitStatus status) {
  switch (status) {
    case SubmitStatus::kAccepted:
      return 202;
    case SubmitStatus::kUnknownTask:
      return 400;
    case SubmitStatus::kQueueFull:
    case SubmitStatus::kClientLimit:
      return 429;
    case SubmitStatus::kDraining:
      return 503;
  }
  return 500;
}

int status_of(EnvError error) {
  switch (error) {
    case EnvError::kBadRequest:
      return 400;
    case EnvError::kNotFound:
      return 404;
    case EnvError::kConflict:
      return 409;
    case EnvError::kRefused:
      return 429;
    case EnvError::kUnavailable:
      return 503;
  }
  return 500;
}

}  // namespace ptxbench::serve
