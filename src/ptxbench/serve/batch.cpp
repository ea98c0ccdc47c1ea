#include "ptxbench/serve/batch.hpp"

#include <fmt/format.h>

#include <set>

#include "ptxbench/serve/api_requests.hpp"
#include "ptxbench/util/hash.hpp"

namespace ptxbench::serve {

bool valid_idempotency_key(const std::string& key) {
  if (key.empty() || key.size() > kMaxKeyLength) return false;
  const auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(key.front())) return false;  // never "." or ".." as a file name
  for (char c : key) {
    if (!alnum(c) && c != '.' && c != '_' && c != ':' && c != '-') return false;
  }
  return true;
}

std::string candidate_digest(const Job& job) {
  return util::Fnv1a64()
      .add(job.task)
      .add(arch::to_string(job.arch))
      .add(job.is_markdown ? "reply" : "code")
      .add(job.text)
      .hex();
}

util::Expected<BatchRequest> parse_batch(const std::string& body) {
  auto parsed = nlohmann::json::parse(body, nullptr, false);
  if (parsed.is_discarded()) return util::make_error("body: not valid JSON");
  if (!parsed.is_object()) return util::make_error("body: expected a JSON object");
  BatchRequest request;
  for (const auto& [key, value] : parsed.items()) {
    if (key == "reward") {
      auto reward = reward_config_from_json(value, "reward");
      if (!reward) return reward.error();
      request.reward = *reward;
    } else if (key != "items") {
      return util::make_error(fmt::format("{}: unknown field", key));
    }
  }
  if (!parsed.contains("items") || !parsed["items"].is_array() || parsed["items"].empty())
    return util::make_error("items: expected a non-empty list");
  const auto& items = parsed["items"];
  if (items.size() > kMaxBatchItems)
    return util::make_error(
        fmt::format("items: {} items; a batch holds at most {}", items.size(), kMaxBatchItems));
  std::set<std::string> keys;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto where = fmt::format("items[{}]", i);
    if (!items[i].is_object()) return util::make_error(where + ": expected a JSON object");
    auto item = items[i];
    if (!item.contains("key") || !item["key"].is_string() ||
        !valid_idempotency_key(item["key"].get<std::string>()))
      return util::make_error(fmt::format(
          "{}.key: required: 1-{} characters of A-Z a-z 0-9 . _ : -, starting with a letter or "
          "digit",
          where, kMaxKeyLength));
    auto key = item["key"].get<std::string>();
    if (!keys.insert(key).second)
      return util::make_error(fmt::format("{}.key: {} appears twice in the batch", where, key));
    item.erase("key");
    auto job = parse_submission(item.dump());
    if (!job) return util::make_error(fmt::format("{}.{}", where, job.error().message));
    request.items.push_back({.key = std::move(key), .job = std::move(*job)});
  }
  return request;
}

}  // namespace ptxbench::serve
