#include "ptxbench/serve/api_routes.hpp"

#include <httplib.h>

#include <fmt/format.h>

#include <chrono>
#include <memory>

#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/serve/api_requests.hpp"
#include "ptxbench/serve/batch_routes.hpp"
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
          {"op_type", task.op_type},
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

// Wraps a handler that needs a client: 401 without a valid bearer token.
template <class Handler>
auto authenticated(ApiContext& api, Handler handler) {
  return [&api, handler](const Request& req, Response& res) {
    auto client = api.tokens.authenticate(req.get_header_value("Authorization"));
    if (!client) {
      res.set_header("WWW-Authenticate", "Bearer");
      reply_error(res, 401, "Authorization: expected 'Bearer TOKEN' with a token of the service");
      return;
    }
    handler(req, res, *client);
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
              authenticated(api, [&api](const Request& req, Response& res, const Client& client) {
                auto job = parse_submission(req.body);
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
              authenticated(api, [&api](const Request& req, Response& res, const Client& client) {
                auto request = parse_reset(req.body);
                if (!request) return reply_error(res, 400, request.error().message);
                auto outcome = api.environment.reset(*request, client);
                if (!outcome.value)
                  return reply_error(res, status_of(outcome.failure.kind), outcome.failure.message);
                reply_json(res, 200, to_json(*outcome.value));
              }));
  server.Post("/v1/env/step",
              authenticated(api, [&api](const Request& req, Response& res, const Client& client) {
                auto request = parse_step(req.body);
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
                {"done", counts.done}});
  });
  register_task_routes(server, api);
  register_evaluation_routes(server, api);
  register_environment_routes(server, api);
  if (api.batches) register_batch_routes(server, api, *api.batches);
  server.set_error_handler([](const Request&, Response& res) {
    if (res.body.empty()) {
      const auto message = res.status == 413   ? "body: larger than the service accepts"
                           : res.status == 404 ? "no such route (the API is under /v1)"
                                               : "request failed";
      reply_error(res, res.status, message);
    }
  });
}

}  // namespace ptxbench::serve
