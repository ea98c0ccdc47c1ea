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
#include "ptxbench/serve/route_helpers.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::serve {
namespace {

using httplib::Request;
using httplib::Response;
using nlohmann::json;

constexpr const char* kJobId = "([0-9]+-[0-9a-f]+)";

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
                 return reply_error(res, 400,
                                    "context: expected none, isa, guide, examples or retrieval");
               // The retrieval level shows the same repairs as an episode's first turn.
               const auto& hook = api.environment.retrieval_prompt();
               if (*level == prompt::ContextLevel::kRetrieval && !hook)
                 return reply_error(res, 400,
                                    "context: retrieval needs a Fixit folder on the service "
                                    "(ptxbench serve --fixit FOLDER)");
               auto built = prompt::build_prompt(*task, *arch, *level, api.context_dir, hook);
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
