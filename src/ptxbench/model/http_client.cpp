#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <memory>

#include <fmt/format.h>

#include "ptxbench/model/http_client.hpp"
#include "ptxbench/util/check.hpp"
#include "ptxbench/util/timestamps.hpp"

namespace ptxbench::model {
namespace {

// libcurl's process-wide initialisation, done once before the first handle and never undone
// while handles may exist.
void ensure_curl_initialised() {
  static const CURLcode kInit = curl_global_init(CURL_GLOBAL_DEFAULT);
  PTXBENCH_CHECK(kInit == CURLE_OK, curl_easy_strerror(kInit));
}

struct EasyDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

struct BodySink {
  std::string* body;
  std::size_t max_bytes;
  bool overflowed = false;
};

// Returning less than was given makes libcurl stop the transfer (CURLE_WRITE_ERROR).
std::size_t append_body(char* data, std::size_t size, std::size_t count, void* sink) {
  auto& body = *static_cast<BodySink*>(sink);
  if (body.body->size() + size * count > body.max_bytes) {
    body.overflowed = true;
    return 0;
  }
  body.body->append(data, size * count);
  return size * count;
}

// Collects the headers of the last response: a new status line starts a new set (redirects,
// 100 Continue).
std::size_t collect_header(char* data, std::size_t size, std::size_t count, void* sink) {
  auto& headers = *static_cast<std::map<std::string, std::string>*>(sink);
  std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    headers.clear();
    return size * count;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return size * count;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  headers[name] = std::string(value);
  return size * count;
}

}  // namespace

const std::string* HttpResponse::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? nullptr : &it->second;
}

CurlHttpClient::CurlHttpClient() {
  ensure_curl_initialised();
}

HttpResponse CurlHttpClient::post(const HttpRequest& request) {
  HttpResponse response;
  std::unique_ptr<CURL, EasyDeleter> handle(curl_easy_init());
  PTXBENCH_CHECK(handle != nullptr, "curl_easy_init failed");
  std::unique_ptr<curl_slist, SlistDeleter> header_list;
  auto add_header = [&header_list](const std::string& line) {
    curl_slist* extended = curl_slist_append(header_list.get(), line.c_str());
    PTXBENCH_CHECK(extended != nullptr, "curl_slist_append failed");
    static_cast<void>(header_list.release());
    header_list.reset(extended);
  };
  for (const auto& [name, value] : request.headers) add_header(name + ": " + value);
  add_header("Expect:");  // no 100-continue round trip for large bodies

  CURL* curl = handle.get();
  char error_buffer[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, header_list.get());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::min(request.connect_timeout, request.timeout).count()));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM-based DNS timeouts
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &append_body);
  BodySink body_sink{.body = &response.body, .max_bytes = request.max_response_bytes};
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body_sink);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &collect_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);

  auto start = std::chrono::steady_clock::now();
  CURLcode code = curl_easy_perform(curl);
  response.seconds = util::seconds_since(start);
  if (code != CURLE_OK) {
    response.timed_out = code == CURLE_OPERATION_TIMEDOUT;
    response.transport_error = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
    if (body_sink.overflowed) {
      response.transport_error = fmt::format("reply body larger than {} bytes (max_reply_bytes)",
                                             request.max_response_bytes);
    }
    return response;
  }
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

std::optional<std::chrono::milliseconds> retry_after_of(const HttpResponse& response) {
  using Ms = std::chrono::milliseconds;
  auto parse_number = [](const std::string& text) -> std::optional<double> {
    try {
      std::size_t used = 0;
      double value = std::stod(text, &used);
      if (used == 0 || value < 0) return std::nullopt;
      return value;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };
  if (const auto* ms = response.header("retry-after-ms")) {
    if (auto value = parse_number(*ms)) return Ms(static_cast<Ms::rep>(*value));
  }
  const auto* after = response.header("retry-after");
  if (after == nullptr) return std::nullopt;
  if (!after->empty() && std::isdigit(static_cast<unsigned char>(after->front()))) {
    if (auto seconds = parse_number(*after)) return Ms(static_cast<Ms::rep>(*seconds * 1000));
    return std::nullopt;
  }
  std::time_t when = curl_getdate(after->c_str(), nullptr);
  if (when < 0) return std::nullopt;
  std::time_t now = std::time(nullptr);
  return Ms(std::max<std::time_t>(0, when - now) * 1000);
}

}  // namespace ptxbench::model
