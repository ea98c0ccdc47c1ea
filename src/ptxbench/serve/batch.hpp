// A batch of evaluations (POST /v1/batches, docs/serve.md "Batches"): many candidates in one
// request, each with the client's idempotency key, scored by one reward function (the service's,
// or the batch's own "reward" object). A key the client has used before names the evaluation it
// got then, so a retried request never evaluates a candidate twice.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/serve/job.hpp"
#include "ptxbench/serve/reward.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::serve {

inline constexpr std::size_t kMaxBatchItems = 1024;
inline constexpr std::size_t kMaxKeyLength = 128;

struct BatchItemRequest {
  std::string key;  // [A-Za-z0-9][A-Za-z0-9._:-]*, unique within the batch
  Job job;          // task, arch, text, is_markdown, source_name
};

struct BatchRequest {
  std::optional<RewardConfig> reward;  // absent: the service's
  std::vector<BatchItemRequest> items;
};

// {"items": [{"key", "task", "arch", exactly one of "code" or "reply", optional "source_name"}],
//  optional "reward"}; problems name the item ("items[3].key: ...").
util::Expected<BatchRequest> parse_batch(const std::string& body);

bool valid_idempotency_key(const std::string& key);

// The content an idempotency key stands for: a key reused for another candidate is refused.
std::string candidate_digest(const Job& job);

}  // namespace ptxbench::serve
