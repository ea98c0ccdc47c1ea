#include "ptxbench/serve/service.hpp"

#include <httplib.h>

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "ptxbench/serve/api_routes.hpp"
#include "ptxbench/serve/batch_store.hpp"

namespace ptxbench::serve {

struct Service::Impl {
  Impl(ServiceOptions given, const std::vector<task::Task>& suite, ClientTokens tokens,
       StreamEvaluateFn evaluate)
      : options(std::move(given)),
        journal(options.journal_dir),
        queue(journal, suite, std::move(evaluate), options.limits),
        environment(suite, options.context_dir, queue, options.reward, options.retrieval),
        batches(options.journal_dir, queue, options.reward),
        api{.suite = suite,
            .tokens = std::move(tokens),
            .context_dir = options.context_dir,
            .queue = queue,
            .environment = environment,
            .batches = &batches} {
    const int threads = std::max(4, options.http_threads);
    server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server.set_payload_max_length(options.max_body_bytes);
    register_routes(server, api);
  }

  ServiceOptions options;
  JobJournal journal;
  JobQueue queue;
  RlEnvironment environment;
  BatchStore batches;
  ApiContext api;
  httplib::Server server;
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
  if (o.port == 0) {
    impl_->port = impl_->server.bind_to_any_port(o.host);
  } else {
    impl_->port = impl_->server.bind_to_port(o.host, o.port) ? o.port : -1;
  }
  if (impl_->port <= 0) {
    why = fmt::format("cannot listen on {}:{}", o.host, o.port);
    return false;
  }
  return true;
}

int Service::port() const {
  return impl_->port;
}

void Service::listen() {
  impl_->server.listen_after_bind();
}

void Service::drain() {
  std::call_once(impl_->drained, [this] {
    impl_->queue.drain();  // 503 for new work; running evaluations finish and are recorded
    impl_->server.stop();  // then the listener closes once open requests have answered
  });
}

JobQueue& Service::queue() {
  return impl_->queue;
}

}  // namespace ptxbench::serve
