// The routes of API version 1 (docs/openapi.yaml). Every route but /v1/health needs a bearer
// token, checked once the request's head is read and before any of its body is (a refused
// request's connection closes with its body unread); a body is read only up to max_body_bytes,
// whatever its Content-Type and Transfer-Encoding. Errors are {"error": "..."} with the HTTP
// status saying what kind. New POST routes take their body through `authenticated_body`.
#pragma once
#include <cstddef>
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
  std::size_t max_body_bytes = 1 << 20;
  std::filesystem::path context_dir;
  JobQueue& queue;
  RlEnvironment& environment;
  BatchStore* batches = nullptr;  // the batch routes (batch_routes.hpp) when set
};

void register_routes(httplib::Server& server, ApiContext& api);

}  // namespace ptxbench::serve
