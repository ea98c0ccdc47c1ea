// The batches of a service and the idempotency keys of its clients, kept beside the job journal
// (DIR/batches/<id>.json, DIR/keys/<client>/<key>.json) so that a restart keeps both: a key
// written once names its evaluation for good, and that evaluation's record is the journal's.
// An item the queue refuses (full, the client at its limit, draining) is in the batch as refused
// with the reason; the client retries it (same key) in a later batch once Retry-After has passed.
#pragma once
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/serve/batch.hpp"
#include "ptxbench/serve/job_queue.hpp"

namespace ptxbench::serve {

struct BatchItem {
  std::string key;
  std::string evaluation_id;  // empty when refused
  bool reused = false;        // the key named an evaluation of an earlier request
  std::string refused;        // why the item was not accepted; empty when it was
  int refused_status = 0;     // the HTTP status that reason would have had alone
};

struct Batch {
  std::string id;
  std::string client;
  RewardConfig reward;
  std::vector<BatchItem> items;
};

class BatchStore {
 public:
  BatchStore(std::filesystem::path dir, JobQueue& queue, RewardConfig service_reward);

  // Items whose key the client has used name that evaluation; the others go to the queue.
  Batch submit(BatchRequest request, const Client& client);
  // nullopt: no such batch, or one of another client.
  std::optional<Batch> find(const std::string& id, const Client& client) const;
  // Returns once every accepted item is done, after `timeout`, or while the service drains.
  void wait(const Batch& batch, std::chrono::milliseconds timeout) const;

  // {"key", "state": queued|running|done|refused, "evaluation_id", "reused"} and, once done,
  // "reward" (null: no reward) and "parts" (reward.hpp), with "record" when asked.
  nlohmann::json item_json(const BatchItem& item, const RewardConfig& reward,
                           bool with_record) const;
  // {"id", "reward" (the function), "total", "done", "refused", "items": [item_json ...]}.
  nlohmann::json to_json(const Batch& batch, bool with_records) const;
  bool finished(const BatchItem& item) const;

 private:
  std::filesystem::path key_file(const std::string& client, const std::string& key) const;
  std::filesystem::path batch_file(const std::string& id) const;

  std::filesystem::path dir_;
  JobQueue& queue_;
  RewardConfig service_reward_;
  std::mutex submit_mutex_;  // one key lookup-submit-write at a time
};

}  // namespace ptxbench::serve
