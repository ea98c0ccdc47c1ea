#include "ptxbench/serve/api_routes.hpp"

#include <httplib.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <memory>

#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/serve/api_requests.hpp"
#include "ptxbench/serve/batch_routes.hpp"
#include "ptxbench/serve/http_front.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::serve {
namespace {

using httplib::Request;
using httplib::Response;
using nlohmann::json;

constexpr auto kStreamKeepAlive = std::chrono::seconds(15);
// Retry-After of a refusal: a full queue frees up in seconds; a draining service is back once
// it has been restarted.
constexpr int kRetryFullSeconds = 5;
constexpr int kRetryDrainingSeconds = 30;
constexpr const char* kJobId = "([0-9]+-[0-9a-f]+)";

void reply_json(Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

void reply_error(Response& res, int status, const std::string& message) {
  if (status == 429) res.set_header("Retry-After", std::to_string(kRetryFullSeconds));
  if (status == 503) res.set_header("Retry-After", std::to_string(kRetryDrainingSeconds));
  reply_json(res, status, {{"error", message}});
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

json task_summary(const task::Task& task) {
  json requested = json::object();
  for (const auto& [arch, families] : task.requested) requested[arch::to_string(arch)] = families;
  return {{"name", task.name},
          {"op_type", task::to_string(task.op_type)},
          {"family", task.family},
          {"split", task.split},
          {"core", task.core},
          {"requested", requested},
          {"headline", task.headline().name}};
}

json snapshot_json(const std::string& id, const JobSnapshot& snapshot) {
  json out{{"id", id}, {"state", to_string(snapshot.state)}};
  if (snapshot.record) out["record"] = *snapshot.record;
  return out;
}

void reply_unauthorized(Response& res) {
  res.set_header("WWW-Authenticate", "Bearer");
  reply_error(res, 401, "Authorization: expected 'Bearer TOKEN' with a token of the service");
}

std::string too_large(const ApiContext& api) {
  return fmt::format("body: larger than the service accepts ({} bytes, --max-body-bytes)",
                     api.max_body_bytes);
}

// Before any body is read (httplib's pre-routing): the token, then what the head says of the
// body. A refusal here closes the connection, the body unread.
httplib::Server::HandlerResponse check_head(ApiContext& api, const Request& req, Response& res) {
  using httplib::Server;
  if (req.path == "/v1/health") return Server::HandlerResponse::Unhandled;
  auto refuse = [&](int status, const std::string& message) {
    close_connection_after_response();
    reply_error(res, status, message);
    return Server::HandlerResponse::Handled;
  };
  if (!api.tokens.authenticate(req.get_header_value("Authorization"))) {
    close_connection_after_response();
    reply_unauthorized(res);
    return Server::HandlerResponse::Handled;
  }
  if (req.has_header("Content-Length")) {
    const auto text = req.get_header_value("Content-Length");
    std::uint64_t length = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), length);
    if (error != std::errc() || end != text.data() + text.size())
      return refuse(400, "Content-Length: expected a whole number");
    if (length > api.max_body_bytes) return refuse(413, too_large(api));
  }
  if (req.has_header("Transfer-Encoding")) {
    auto coding = req.get_header_value("Transfer-Encoding");
    std::transform(coding.begin(), coding.end(), coding.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (coding != "chunked") return refuse(501, "Transfer-Encoding: only chunked is accepted");
  }
  if (req.has_header("Content-Encoding") && req.get_header_value("Content-Encoding") != "identity")
    return refuse(415, "Content-Encoding: not accepted; send the body uncompressed");
  if (req.is_multipart_form_data())
    return refuse(415, "Content-Type: multipart is not accepted; send a JSON body");
  return Server::HandlerResponse::Unhandled;
}

// Wraps a handler that needs a client: 401 without a valid bearer token (check_head has
// refused those already; this gives the handler its client). A body httplib read for a plain
// handler is held to max_body_bytes here.
template <class Handler>
auto authenticated(ApiContext& api, Handler handler) {
  return [&api, handler](const Request& req, Response& res) {
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
  return [&api, handler](const Request& req, Response& res, const httplib::ContentReader& read) {
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

// The job when it exists and belongs to the client; else a 404 has been sent.
std::optional<JobSnapshot> owned_job(ApiContext& api, const std::string& id, const Client& client,
                                     Response& res) {
  auto snapshot = api.queue.find(id);
  if (!snapshot || snapshot->client != client.name) {
    reply_error(res, 404, fmt::format("evaluation {}: not found", id));
    return std::nullopt;
  }
  return snapshot;
}

void stream_job(ApiContext& api, const std::string& id, Response& res) {
  auto last = std::make_shared<std::optional<JobState>>();
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider("text/event-stream", [&api, id, last](std::size_t,
                                                                         httplib::DataSink& sink) {
    auto snapshot =
        *last ? api.queue.wait_for_change(id, **last, kStreamKeepAlive) : api.queue.find(id);
    if (!snapshot) {
      sink.done();
      return true;
    }
    if (*last && snapshot->state == **last) {
      // A running evaluation finishes during a drain; a queued one waits for the next start.
      if (api.queue.draining() && snapshot->state == JobState::kQueued) {
        const std::string event = "event: draining\ndata: {}\n\n";
        sink.write(event.data(), event.size());
        sink.done();
        return true;
      }
      const std::string keep_alive = ": still " + std::string(to_string(snapshot->state)) + "\n\n";
      return sink.write(keep_alive.data(), keep_alive.size());
    }
    *last = snapshot->state;
    std::string events =
        fmt::format("event: state\ndata: {}\n\n",
                    json{{"id", id}, {"state", to_string(snapshot->state)}}.dump());
    if (snapshot->record)
      events += fmt::format("event: record\ndata: {}\n\n", snapshot->record->dump());
    if (!sink.write(events.data(), events.size())) return false;
    if (snapshot->state == JobState::kDone) sink.done();
    return true;
  });
}

void register_task_routes(httplib::Server& server, ApiContext& api) {
  server.Get("/v1/tasks", authenticated(api, [&api](const Request&, Response& res, const Client&) {
               json tasks = json::array();
               for (const auto& t : api.suite) tasks.push_back(task_summary(t));
               reply_json(res, 200, {{"tasks", tasks}});
             }));
  server.Get(R"(/v1/tasks/([A-Za-z0-9_.-]+))",
             authenticated(api, [&api](const Request& req, Response& res, const Client&) {
               const auto* task = task::find_task(api.suite, req.matches[1].str());
               if (!task) return reply_error(res, 404, "task: no such task");
               auto text = util::read_file(task->source);
               if (!text) return reply_error(res, 500, text.error().message);
               json out = task_summary(*task);
               out["definition"] = json::parse(*text, nullptr, false);
               reply_json(res, 200, out);
             }));
  server.Get(R"(/v1/tasks/([A-Za-z0-9_.-]+)/prompt)",
             authenticated(api, [&api](const Request& req, Response& res, const Client&) {
               const auto* task = task::find_task(api.suite, req.matches[1].str());
               if (!task) return reply_error(res, 404, "task: no such task");
               auto arch = arch::parse(req.get_param_value("arch"));
               if (!arch) return reply_error(res, 400, "arch: expected hopper or blackwell");
               const auto context_name =
                   req.has_param("context") ? req.get_param_value("context") : "none";
               auto level = prompt::parse_context_level(context_name);
               if (!level)
                 return reply_error(res, 400, "context: expected none, isa, guide or examples");
               auto built = prompt::build_prompt(*task, *arch, *level, api.context_dir);
               if (!built) return reply_error(res, 500, built.error().message);
               reply_json(
                   res, 200,
                   {{"task", task->name},
                    {"arch", arch::to_string(*arch)},
                    {"context", prompt::to_string(*level)},
                    {"messages", json::array({{{"role", "system"}, {"content", built->system}},
                                              {{"role", "user"}, {"content", built->task}}})}});
             }));
}

void register_evaluation_routes(httplib::Server& server, ApiContext& api) {
  server.Post("/v1/evaluations",
              authenticated_body(api, [&api](const Request&, const std::string& body, Response& res,
                                             const Client& client) {
                auto job = parse_submission(body);
                if (!job) return reply_error(res, 400, job.error().message);
                auto submitted = api.queue.submit(std::move(*job), client);
                if (submitted.status != SubmitStatus::kAccepted)
                  return reply_error(res, status_of(submitted.status), submitted.message);
                res.set_header("Location", "/v1/evaluations/" + submitted.id);
                reply_json(res, 202, {{"id", submitted.id}, {"state", "queued"}});
              }));
  server.Get(fmt::format("/v1/evaluations/{}", kJobId),
             authenticated(api, [&api](const Request& req, Response& res, const Client& client) {
               const auto id = req.matches[1].str();
               if (auto snapshot = owned_job(api, id, client, res))
                 reply_json(res, 200, snapshot_json(id, *snapshot));
             }));
  server.Get(fmt::format("/v1/evaluations/{}/stream", kJobId),
             authenticated(api, [&api](const Request& req, Response& res, const Client& client) {
               const auto id = req.matches[1].str();
               if (owned_job(api, id, client, res)) stream_job(api, id, res);
             }));
}

void register_environment_routes(httplib::Server& server, ApiContext& api) {
  server.Get("/v1/env/reward",
             authenticated(api, [&api](const Request&, Response& res, const Client&) {
               reply_json(res, 200, to_json(api.environment.reward()));
             }));
  server.Post("/v1/env/reset",
              authenticated_body(api, [&api](const Request&, const std::string& body, Response& res,
                                             const Client& client) {
                auto request = parse_reset(body);
                if (!request) return reply_error(res, 400, request.error().message);
                auto outcome = api.environment.reset(*request, client);
                if (!outcome.value)
                  return reply_error(res, status_of(outcome.failure.kind), outcome.failure.message);
                reply_json(res, 200, to_json(*outcome.value));
              }));
  server.Post("/v1/env/step",
              authenticated_body(api, [&api](const Request&, const std::string& body, Response& res,
                                             const Client& client) {
                auto request = parse_step(body);
                if (!request) return reply_error(res, 400, request.error().message);
                auto outcome = api.environment.step(request->session, request->reply, client);
                if (!outcome.value) {
                  const int status = outcome.failure.kind == EnvError::kRefused
                                         ? status_of(outcome.failure.refusal)
                                         : status_of(outcome.failure.kind);
                  return reply_error(res, status, outcome.failure.message);
                }
                reply_json(res, 200, to_json(*outcome.value));
              }));
  server.Delete(R"(/v1/env/sessions/(s[0-9a-f]{16}))",
                authenticated(api, [&api](const Request& req, Response& res, const Client& client) {
                  auto outcome = api.environment.close(req.matches[1].str(), client);
                  if (!outcome.value)
                    return reply_error(res, status_of(outcome.failure.kind),
                                       outcome.failure.message);
                  res.status = 204;
                }));
}

}  // namespace

void register_routes(httplib::Server& server, ApiContext& api) {
  server.Get("/v1/health", [&api](const Request&, Response& res) {
    const auto counts = api.queue.counts();
    reply_json(res, 200,
               {{"status", api.queue.draining() ? "draining" : "ok"},
                {"api_version", 1},
                {"queued", counts.queued},
                {"running", counts.running},
                {"done", counts.done},
                {"sessions", api.environment.session_count()}});
  });
  server.set_pre_routing_handler(
      [&api](const Request& req, Response& res) { return check_head(api, req, res); });
  // A client that waits for "100 Continue" before its body hears the refusal instead.
  server.set_expect_100_continue_handler([&api](const Request& req, Response& res) {
    return check_head(api, req, res) == httplib::Server::HandlerResponse::Handled ? res.status
                                                                                  : 100;
  });
  register_task_routes(server, api);
  register_evaluation_routes(server, api);
  register_environment_routes(server, api);
  if (api.batches) register_batch_routes(server, api, *api.batches);
  server.set_error_handler([&api](const Request&, Response& res) {
    // A body the front stopped reading (over its bytes or its time) reaches httplib as a read
    // failure, which it answers 400.
    if (body_problem() == BodyProblem::kTooLarge) {
      res.status = 413;
      res.body.clear();
    } else if (body_problem() == BodyProblem::kTooSlow) {
      res.status = 408;
      res.body.clear();
    }
    if (res.body.empty()) {
      const auto message = res.status == 413   ? too_large(api)
                           : res.status == 408 ? std::string("body: not received in time")
                           : res.status == 404 ? std::string("no such route (the API is under /v1)")
                                               : std::string("request failed");
      reply_error(res, res.status, message);
    }
  });
}

}  // namespace ptxbench::serve
