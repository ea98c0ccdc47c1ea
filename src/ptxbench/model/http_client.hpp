// The network seam of the HTTP providers: one POST with headers, a body and a deadline.
// CurlHttpClient is the real one (libcurl); tests run it against a loopback server.
#pragma once
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptxbench::model {

struct HttpRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // the whole exchange
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(30)};
  std::size_t max_response_bytes = 64u << 20;  // a longer body ends the transfer as an error
};

struct HttpResponse {
  int status = 0;                              // 0 when no response arrived
  std::map<std::string, std::string> headers;  // names lower-cased; of the final response
  std::string body;
  std::string transport_error;  // set when no complete response arrived
  bool timed_out = false;
  double seconds = 0;

  bool transport_ok() const { return transport_error.empty(); }
  const std::string* header(const std::string& lower_name) const;
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // Must be safe to call from several threads at once.
  virtual HttpResponse post(const HttpRequest& request) = 0;
};

class CurlHttpClient final : public HttpClient {
 public:
  CurlHttpClient();
  HttpResponse post(const HttpRequest& request) override;
};

// Retry-After of a response: `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an
// HTTP date. nullopt when absent or unreadable.
std::optional<std::chrono::milliseconds> retry_after_of(const HttpResponse& response);

}  // namespace ptxbench::model
