#include "ptxbench/serve/service.hpp"

#include <httplib.h>

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "ptxbench/serve/api_routes.hpp"
#include "ptxbench/serve/batch_store.hpp"
#include "ptxbench/serve/http_front.hpp"

namespace ptxbench::serve {

struct Service::Impl {
  Impl(ServiceOptions given, const std::vector<task::Task>& suite, ClientTokens tokens,
       StreamEvaluateFn evaluate)
      : options(std::move(given)),
        journal(options.journal_dir),
        queue(journal, suite, std::move(evaluate), options.limits),
        environment(suite, options.context_dir, queue, options.reward, options.sessions,
                    options.journal_dir / "sessions", options.retrieval),
        batches(options.journal_dir, queue, options.reward),
        api{.suite = suite,
            .tokens = std::move(tokens),
            .max_body_bytes = options.max_body_bytes,
            .context_dir = options.context_dir,
            .queue = queue,
            .environment = environment,
            .batches = &batches} {
    register_routes(server, api);
  }

  static FrontLimits front_limits(const ServiceOptions& options) {
    auto limits = options.http;
    // Chunk framing may add to the body's bytes on the wire; the decoded body is held to
    // max_body_bytes by the routes.
    limits.max_body_wire_bytes = 2 * options.max_body_bytes + 64 * 1024;
    return limits;
  }

  ServiceOptions options;
  JobJournal journal;
  JobQueue queue;
  RlEnvironment environment;
  BatchStore batches;
  ApiContext api;
  Router server;
  HttpFront front{server, front_limits(options)};
  int port = 0;
  std::once_flag drained;
};

Service::Service(ServiceOptions options, const std::vector<task::Task>& suite, ClientTokens tokens,
                 StreamEvaluateFn evaluate)
    : impl_(std::make_unique<Impl>(std::move(options), suite, std::move(tokens),
                                   std::move(evaluate))) {}

Service::Service(ServiceOptions options, const std::vector<task::Task>& suite, ClientTokens tokens,
                 agent::EvaluateFn evaluate)
    : Service(options, suite, std::move(tokens),
              evaluate_each(std::move(evaluate), std::max(1, options.limits.workers))) {}

Service::~Service() {
  drain();
}

bool Service::bind(std::string& why) {
  const auto& o = impl_->options;
  auto port = impl_->front.bind(o.host, o.port);
  if (!port) {
    why = port.error().message;
    return false;
  }
  impl_->port = *port;
  return true;
}

int Service::port() const {
  return impl_->port;
}

void Service::listen() {
  impl_->front.serve();
}

void Service::drain() {
  std::call_once(impl_->drained, [this] {
    impl_->queue.drain();  // 503 for new work; running evaluations finish and are recorded
    impl_->front.stop();   // then the listener closes once open requests have answered
  });
}

JobQueue& Service::queue() {
  return impl_->queue;
}

}  // namespace ptxbench::serve
