// The request bodies of the API as typed values; every problem is "field: what is wrong".
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "ptxbench/serve/job.hpp"
#include "ptxbench/serve/rl_environment.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::serve {

// POST /v1/evaluations: {"task", "arch", and exactly one of "code" (a .cu source) or "reply"
// (a model reply; its last fenced block is the candidate), optional "source_name"}.
util::Expected<Job> parse_submission(const std::string& body);

// POST /v1/env/reset: {"arch", optional "task", "split", "context", "seed", "max_turns",
// "target_speedup", "reward" (reward.hpp: this episode's reward function)}.
util::Expected<ResetRequest> parse_reset(const std::string& body);

struct StepRequest {
  std::string session;
  std::string reply;
};
// POST /v1/env/step: {"session", "reply"}.
util::Expected<StepRequest> parse_step(const std::string& body);

}  // namespace ptxbench::serve
