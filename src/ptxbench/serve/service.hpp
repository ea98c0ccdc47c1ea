// `ptxbench serve`: the HTTP API (docs/openapi.yaml) over a job queue and an RL environment.
// Construction recovers the journal and starts the evaluation stream; listen() serves until
// drain() (what SIGTERM leads to): new submissions get 503, running evaluations finish and are
// recorded, queued ones stay in the journal for the next start, then the listener stops.
#pragma once
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/serve/client_tokens.hpp"
#include "ptxbench/serve/front_limits.hpp"
#include "ptxbench/serve/job_queue.hpp"
#include "ptxbench/serve/reward.hpp"
#include "ptxbench/serve/rl_environment.hpp"

namespace ptxbench::serve {

struct ServiceOptions {
  std::string host = "127.0.0.1";
  int port = 8750;  // 0: any free port (see Service::port)
  std::filesystem::path journal_dir;
  std::filesystem::path context_dir;
  QueueLimits limits;
  std::size_t max_body_bytes = 1 << 20;  // larger request bodies get 413, whatever their encoding
  // Connections and their time (http.threads: requests answered at once, event streams and RL
  // steps included). Its max_body_wire_bytes is set from max_body_bytes.
  FrontLimits http;
  SessionLimits sessions;
  RewardConfig reward;
  RetrievalHooks retrieval;  // the retrieval context level of the RL environment, when set
};

class Service {
 public:
  // `evaluate`: the evaluation stream of the queue (the engine's in `ptxbench serve`).
  Service(ServiceOptions options, const std::vector<task::Task>& suite, ClientTokens tokens,
          StreamEvaluateFn evaluate);
  // A function of one candidate on `options.limits.workers` threads.
  Service(ServiceOptions options, const std::vector<task::Task>& suite, ClientTokens tokens,
          agent::EvaluateFn evaluate);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Binds the listening socket; returns false (with `why`) when it cannot (a port in use
  // included).
  bool bind(std::string& why);
  int port() const;
  void listen();  // blocks until drain()
  // Waits for the running evaluations (queue().drain_for bounds the wait), then closes the
  // listener. Safe from any thread, more than once.
  void drain();
  JobQueue& queue();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ptxbench::serve
