// The routes of API version 1 (docs/openapi.yaml). Every route but /v1/health needs a bearer
// token; errors are {"error": "..."} with the HTTP status saying what kind.
#pragma once
#include <filesystem>
#include <vector>

#include "ptxbench/serve/client_tokens.hpp"
#include "ptxbench/serve/job_queue.hpp"
#include "ptxbench/serve/rl_environment.hpp"

namespace httplib {
class Server;
}

namespace ptxbench::serve {

class BatchStore;

struct ApiContext {
  const std::vector<task::Task>& suite;
  ClientTokens tokens;
  std::filesystem::path context_dir;
  JobQueue& queue;
  RlEnvironment& environment;
  BatchStore* batches = nullptr;  // the batch routes (batch_routes.hpp) when set
};

void register_routes(httplib::Server& server, ApiContext& api);

}  // namespace ptxbench::serve
