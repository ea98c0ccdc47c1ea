#include "ptxbench/serve/batch_store.hpp"

#include <fmt/format.h>

#include <random>

#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/serve/route_helpers.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/hash.hpp"

namespace ptxbench::serve {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

std::string make_batch_id() {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  return fmt::format("b{:016x}", generator());
}

// Client names come from the tokens file (trusted); one that is no plain file name is hashed.
std::string client_folder(const std::string& client) {
  const bool plain = !client.empty() && client.front() != '.' &&
                     client.find_first_not_of(
                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                         "0123456789._-") == std::string::npos;
  return plain ? client : "h" + util::hash_hex(client);
}

std::optional<json> read_json(const fs::path& path) {
  if (!fs::exists(path)) return std::nullopt;
  auto text = util::read_file(path);
  if (!text) return std::nullopt;
  auto parsed = json::parse(*text, nullptr, false);
  if (parsed.is_discarded()) return std::nullopt;
  return parsed;
}

json batch_file_json(const Batch& batch) {
  json items = json::array();
  for (const auto& item : batch.items) {
    items.push_back({{"key", item.key},
                     {"evaluation_id", item.evaluation_id},
                     {"reused", item.reused},
                     {"refused", item.refused},
                     {"refused_status", item.refused_status}});
  }
  return {{"id", batch.id},
          {"client", batch.client},
          {"reward", serve::to_json(batch.reward)},
          {"items", items}};
}

std::optional<Batch> batch_from_file(const json& stored) {
  try {
    auto reward = reward_config_from_json(stored.at("reward"), "batch reward");
    if (!reward) return std::nullopt;  // written by a service of another reward version
    Batch batch{.id = stored.at("id").get<std::string>(),
                .client = stored.at("client").get<std::string>(),
                .reward = *reward};
    for (const auto& item : stored.at("items")) {
      batch.items.push_back({.key = item.at("key").get<std::string>(),
                             .evaluation_id = item.at("evaluation_id").get<std::string>(),
                             .reused = item.at("reused").get<bool>(),
                             .refused = item.at("refused").get<std::string>(),
                             .refused_status = item.at("refused_status").get<int>()});
    }
    return batch;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

BatchStore::BatchStore(fs::path dir, JobQueue& queue, RewardConfig service_reward)
    : dir_(std::move(dir)), queue_(queue), service_reward_(service_reward) {
  fs::create_directories(dir_ / "batches");
  fs::create_directories(dir_ / "keys");
}

fs::path BatchStore::key_file(const std::string& client, const std::string& key) const {
  return dir_ / "keys" / client_folder(client) / (key + ".json");
}

fs::path BatchStore::batch_file(const std::string& id) const {
  return dir_ / "batches" / (id + ".json");
}

Batch BatchStore::submit(BatchRequest request, const Client& client) {
  Batch batch{.id = make_batch_id(),
              .client = client.name,
              .reward = request.reward.value_or(service_reward_)};
  std::lock_guard lock(submit_mutex_);
  for (auto& [key, job] : request.items) {
    BatchItem item{.key = key};
    const auto digest = candidate_digest(job);
    const auto file = key_file(client.name, key);
    if (auto known = read_json(file)) {
      if (known->value("digest", "") != digest) {
        item.refused = fmt::format("key {}: already used for another candidate", key);
        item.refused_status = 409;
      } else {
        item.evaluation_id = known->value("evaluation_id", "");
        item.reused = true;
      }
      batch.items.push_back(std::move(item));
      continue;
    }
    if (job.source_name.empty() || job.source_name == "reply.md" || job.source_name == "kernel.cu")
      job.source_name = fmt::format("batch {} key {}", batch.id, key);
    auto submitted = queue_.submit(std::move(job), client);
    if (submitted.status != SubmitStatus::kAccepted) {
      item.refused = submitted.message;
      item.refused_status = status_of(submitted.status);
    } else {
      // The job is in the journal; from here the key names it across restarts.
      item.evaluation_id = submitted.id;
      fs::create_directories(file.parent_path());
      util::write_file_atomic(file, json{{"key", key},
                                         {"client", client.name},
                                         {"evaluation_id", submitted.id},
                                         {"digest", digest}}
                                        .dump());
    }
    batch.items.push_back(std::move(item));
  }
  util::write_file_atomic(batch_file(batch.id), batch_file_json(batch).dump());
  return batch;
}

std::optional<Batch> BatchStore::find(const std::string& id, const Client& client) const {
  if (id.empty() || id.find_first_of("/\\.") != std::string::npos) return std::nullopt;
  auto stored = read_json(batch_file(id));
  if (!stored) return std::nullopt;
  auto batch = batch_from_file(*stored);
  if (!batch || batch->client != client.name) return std::nullopt;
  return batch;
}

bool BatchStore::finished(const BatchItem& item) const {
  if (item.evaluation_id.empty()) return true;
  auto snapshot = queue_.find(item.evaluation_id);
  return !snapshot || snapshot->state == JobState::kDone;
}

void BatchStore::wait(const Batch& batch, std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const auto& item : batch.items) {
    for (;;) {
      if (item.evaluation_id.empty() || queue_.draining()) break;
      auto snapshot = queue_.find(item.evaluation_id);
      if (!snapshot || snapshot->state == JobState::kDone) break;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return;
      queue_.wait_for_change(item.evaluation_id, snapshot->state, left);
    }
  }
}

json BatchStore::item_json(const BatchItem& item, const RewardConfig& reward,
                           bool with_record) const {
  json out{{"key", item.key}};
  if (item.evaluation_id.empty()) {
    out["state"] = "refused";
    out["error"] = item.refused;
    out["status"] = item.refused_status;
    return out;
  }
  out["evaluation_id"] = item.evaluation_id;
  out["reused"] = item.reused;
  auto snapshot = queue_.find(item.evaluation_id);
  if (!snapshot) {
    out["state"] = "lost";  // its journal entry is gone: the service's folder was tampered with
    return out;
  }
  out["state"] = serve::to_string(snapshot->state);
  if (snapshot->state != JobState::kDone || !snapshot->record) return out;
  auto evaluation = eval::evaluation_from_json(*snapshot->record);
  if (!evaluation) {
    out["reward"] = nullptr;
    out["error"] = "the evaluation record does not read back: " + evaluation.error().message;
  } else {
    const auto value = reward_of(*evaluation, reward);
    out["reward"] = value ? json(*value) : json(nullptr);
    out["parts"] = serve::to_json(reward_parts(*evaluation));
  }
  if (with_record) out["record"] = *snapshot->record;
  return out;
}

json BatchStore::to_json(const Batch& batch, bool with_records) const {
  json items = json::array();
  std::size_t done = 0, refused = 0;
  for (const auto& item : batch.items) {
    items.push_back(item_json(item, batch.reward, with_records));
    const auto& state = items.back()["state"];
    done += state == "done" ? 1 : 0;
    refused += state == "refused" ? 1 : 0;
  }
  return {{"id", batch.id},
          {"reward", serve::to_json(batch.reward)},
          {"total", batch.items.size()},
          {"done", done},
          {"refused", refused},
          {"items", items}};
}

}  // namespace ptxbench::serve
