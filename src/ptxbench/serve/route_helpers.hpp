// What the route handlers of API v1 (api_routes, batch_routes) share: JSON replies and
// {"error": ...} refusals, the HTTP status of a queue's or an environment's refusal, and the
// wrappers that give a handler its authenticated client (and its body, read within bounds).
#pragma once
#include <httplib.h>

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "ptxbench/serve/api_routes.hpp"
#include "ptxbench/serve/http_front.hpp"

namespace ptxbench::serve {

// How long an event stream stays silent before a keep-alive comment line.
inline constexpr auto kStreamKeepAlive = std::chrono::seconds(15);

void reply_json(httplib::Response& res, int status, const nlohmann::json& body);
// {"error": message}; a 429 or 503 also says when to retry (Retry-After).
void reply_error(httplib::Response& res, int status, const std::string& message);
void reply_unauthorized(httplib::Response& res);
std::string too_large(const ApiContext& api);  // the message of a 413

int status_of(SubmitStatus status);
int status_of(EnvError error);

// Wraps a handler of (request, response, client): 401 without a valid bearer token (the head
// check has refused those already; this gives the handler its client). A body httplib read for
// a plain handler is held to max_body_bytes here.
template <class Handler>
auto authenticated(ApiContext& api, Handler handler) {
  return [&api, handler](const httplib::Request& req, httplib::Response& res) {
    auto client = api.tokens.authenticate(req.get_header_value("Authorization"));
    if (!client) return reply_unauthorized(res);
    if (req.body.size() > api.max_body_bytes) return reply_error(res, 413, too_large(api));
    handler(req, res, *client);
  };
}

// A POST handler of (request, body, response, client): the body is read here, after the token,
// up to max_body_bytes whatever its Content-Type (curl -d sends a JSON body as a form, which
// httplib itself would hold to 8 KiB) and Transfer-Encoding.
template <class Handler>
auto authenticated_body(ApiContext& api, Handler handler) {
  return [&api, handler](const httplib::Request& req, httplib::Response& res,
                         const httplib::ContentReader& read) {
    auto client = api.tokens.authenticate(req.get_header_value("Authorization"));
    if (!client) return reply_unauthorized(res);
    std::string body;
    bool over = false;
    const bool complete = read([&](const char* data, std::size_t size) {
      over = body.size() + size > api.max_body_bytes;
      if (!over) body.append(data, size);
      return !over;
    });
    if (over || body_problem() == BodyProblem::kTooLarge) {
      close_connection_after_response();
      return reply_error(res, 413, too_large(api));
    }
    if (!complete) {
      close_connection_after_response();
      if (body_problem() == BodyProblem::kTooSlow)
        return reply_error(res, 408, "body: not received in time");
      return reply_error(res, 400, "body: not read to its end (broken chunked framing?)");
    }
    handler(req, body, res, *client);
  };
}

}  // namespace ptxbench::serve
