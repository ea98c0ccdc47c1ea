#include "ptxbench/eval/verdict_cache.hpp"

#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <system_error>
#include <vector>

#include "ptxbench/config.hpp"
#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/util/child_processes.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/hash.hpp"
#include "ptxbench/util/lru_folder.hpp"
#include "ptxbench/util/timestamps.hpp"

namespace ptxbench::eval {
namespace {

using Json = nlohmann::json;

// The first four stages are the fresh record's own; a hit takes the others from the original.
bool is_gpu_stage(Stage stage) {
  return stage == Stage::kSanitize || stage == Stage::kCorrectness ||
         stage == Stage::kDynamicSass || stage == Stage::kTiming;
}

// FNV-1a of a file's bytes, read in blocks; empty when it cannot be read.
std::string file_hash(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  util::Fnv1a64 hash;
  std::vector<char> block(1 << 20);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    hash.add(std::string_view(block.data(), static_cast<std::size_t>(in.gcount())));
  }
  return hash.hex();
}

}  // namespace

std::string VerdictKey::text() const {
  return Json{{"code", code},
              {"task", task},
              {"arch", std::string(arch::info(arch).sm)},
              {"input_seed", input_seed},
              {"settings", settings},
              {"toolchain", toolchain},
              {"gpu", gpu},
              {"judge", judge}}
      .dump();
}

std::string verdict_settings_text(const EvaluationSettings& settings) {
  // The rows of the setting table that decide a verdict (setting_table.hpp).
  return verdict_deciding_settings(settings).dump();
}

std::string ptxbench_build_identity(const std::filesystem::path& worker) {
  static const std::string self = file_hash("/proc/self/exe");
  return std::string(config::kVersion) + "|" + self + "|" +
         (worker.empty() ? std::string() : file_hash(worker));
}

bool cacheable(const Evaluation& e) {
  if (e.verdict == Verdict::kInternalError || e.verdict == Verdict::kNotRun ||
      e.verdict == Verdict::kTimeout)
    return false;
  if (e.cached) return false;  // already in the cache
  for (const auto& stage : e.stages) {
    if (stage.status == StageStatus::kNotChecked || stage.status == StageStatus::kNotRun)
      return false;
  }
  return !util::children_stopped();
}

VerdictCache::VerdictCache(std::filesystem::path dir, std::uint64_t max_bytes)
    : dir_(std::move(dir)), max_bytes_(max_bytes) {}

std::filesystem::path VerdictCache::entry_file(const std::string& key_text) const {
  return dir_ / (util::hash_hex(key_text) + ".json");
}

bool VerdictCache::apply(const VerdictKey& key, Evaluation& evaluation) {
  const std::string key_text = key.text();
  const auto file = entry_file(key_text);
  auto miss = [this] {
    std::lock_guard lock(mutex_);
    ++stats_.misses;
    return false;
  };
  auto text = util::read_file(file, util::kMaxRecordFileBytes);
  if (!text) return miss();
  const Json entry = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  // The stored key text itself must equal the key: a hash collision is a miss, never a hit.
  if (entry.is_discarded() || !entry.is_object() || entry.value("key", "") != key_text ||
      !entry.contains("evaluation"))
    return miss();
  auto stored = evaluation_from_json(entry["evaluation"]);
  if (!stored) return miss();
  Evaluation hit = std::move(*stored);
  // What this submission did itself: its name, its first four stages, its compile.
  hit.source_name = evaluation.source_name;
  hit.compile = evaluation.compile;
  hit.wall_seconds = evaluation.wall_seconds;
  hit.input_seed = evaluation.input_seed;
  hit.seed_pool = evaluation.seed_pool;
  for (const auto& fresh : evaluation.stages) {
    if (!is_gpu_stage(fresh.stage)) hit.stage(fresh.stage) = fresh;
  }
  for (const auto& [tool, version] : evaluation.toolchain) hit.toolchain[tool] = version;
  hit.cached = CachedVerdict{.key = file.stem().string(), .from = entry.value("judged_at", "")};
  evaluation = std::move(hit);
  std::error_code ignored;  // last use, for the least-recently-used eviction
  std::filesystem::last_write_time(file, std::filesystem::file_time_type::clock::now(), ignored);
  std::lock_guard lock(mutex_);
  ++stats_.hits;
  return true;
}

void VerdictCache::store(const VerdictKey& key, const Evaluation& evaluation) {
  if (!cacheable(evaluation)) return;
  const std::string key_text = key.text();
  const auto file = entry_file(key_text);
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) return;  // another process was first
  std::filesystem::create_directories(dir_, ec);
  const Json entry{
      {"key", key_text}, {"judged_at", util::utc_timestamp()}, {"evaluation", to_json(evaluation)}};
  if (!util::write_cache_file(file, entry.dump())) return;
  {
    std::lock_guard lock(mutex_);
    ++stats_.stores;
  }
  evict_over_budget();
}

void VerdictCache::count_bypass() {
  std::lock_guard lock(mutex_);
  ++stats_.bypassed;
}

void VerdictCache::evict_over_budget() {
  if (max_bytes_ == 0) return;
  const auto kept = util::evict_least_recently_used(
      dir_, max_bytes_,
      [](const std::filesystem::directory_entry& entry) -> std::optional<std::uint64_t> {
        std::error_code ec;
        if (!entry.is_regular_file(ec) || entry.path().extension() != ".json") return std::nullopt;
        const std::uint64_t bytes = entry.file_size(ec);
        if (ec) return std::nullopt;
        return bytes;
      });
  std::lock_guard lock(mutex_);
  stats_.evictions += kept.removed;
}

VerdictCacheStats VerdictCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace ptxbench::eval
