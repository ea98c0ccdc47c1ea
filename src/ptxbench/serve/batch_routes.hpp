// The batch routes of API v1 (docs/openapi.yaml, docs/serve.md "Batches"):
//   POST /v1/batches                 submit many candidates with idempotency keys -> 202
//   GET  /v1/batches/{id}            their states, rewards and reward parts (?wait_s=N long-polls
//                                    up to N <= 60 seconds for all to finish; ?records=1 adds
//                                    each evaluation record)
//   GET  /v1/batches/{id}/stream     server-sent events: one `result` per item as it finishes,
//                                    then `done`
#pragma once
#include "ptxbench/serve/api_routes.hpp"
#include "ptxbench/serve/batch_store.hpp"

namespace ptxbench::serve {

void register_batch_routes(httplib::Server& server, ApiContext& api, BatchStore& batches);

}  // namespace ptxbench::serve
