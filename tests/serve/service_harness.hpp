// A Service on a free loopback port, run on its own thread for the life of the harness, and an
// HTTP client of it with a chosen token.
#pragma once
#include <httplib.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <thread>

#include "ptxbench/prompt/context_level.hpp"
#include "ptxbench/serve/service.hpp"
#include "ptxbench/util/fs.hpp"
#include "serve_fakes.hpp"

namespace ptxbench::testing {

inline const std::vector<task::Task>& serve_suite() {
  static const auto loaded = task::load_suite(task::default_tasks_dir());
  return *loaded;
}

class ServiceHarness {
 public:
  // A function of one candidate, on `options.limits.workers` threads.
  ServiceHarness(agent::EvaluateFn evaluate, serve::ServiceOptions options = {},
                 std::filesystem::path journal = {})
      : ServiceHarness(
            serve::evaluate_each(std::move(evaluate), std::max(1, options.limits.workers)), options,
            std::move(journal)) {}
  ServiceHarness(serve::StreamEvaluateFn evaluate, serve::ServiceOptions options = {},
                 std::filesystem::path journal = {}) {
    options.port = 0;
    options.journal_dir = journal.empty() ? dir_.path() / "journal" : journal;
    options.context_dir = prompt::default_context_dir();
    service_ = std::make_unique<serve::Service>(
        options, serve_suite(), serve::ClientTokens({kTrainer, kAgent}), std::move(evaluate));
    std::string why;
    if (!service_->bind(why)) throw std::runtime_error(why);
    thread_ = std::thread([this] { service_->listen(); });
  }
  ~ServiceHarness() {
    service_->drain();
    thread_.join();
  }
  ServiceHarness(const ServiceHarness&) = delete;
  ServiceHarness& operator=(const ServiceHarness&) = delete;

  std::unique_ptr<httplib::Client> client(const serve::Client& who) const {
    auto http = std::make_unique<httplib::Client>("127.0.0.1", service_->port());
    http->set_bearer_token_auth(who.token.c_str());
    http->set_read_timeout(60, 0);
    return http;
  }
  serve::Service& service() { return *service_; }
  int port() const { return service_->port(); }

 private:
  util::TempDir dir_;
  std::unique_ptr<serve::Service> service_;
  std::thread thread_;
};

inline nlohmann::json body_of(const httplib::Result& result) {
  return nlohmann::json::parse(result->body);
}

}  // namespace ptxbench::testing
