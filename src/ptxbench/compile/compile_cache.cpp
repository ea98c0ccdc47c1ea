#include "ptxbench/compile/compile_cache.hpp"

#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <system_error>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/hash.hpp"
#include "ptxbench/util/lru_folder.hpp"

namespace ptxbench::compile {
namespace {

using Json = nlohmann::json;
constexpr std::string_view kKeyFile = "key.json";
constexpr std::string_view kOutputFile = "output.json";

Json key_json(const CompileKey& key) {
  return {{"code", key.code}, {"command", key.command}, {"toolchain", key.toolchain}};
}

Json output_json(const CompileOutput& out) {
  Json kernels = Json::array();
  for (const auto& k : out.kernels) {
    kernels.push_back({{"name", k.name},
                       {"registers", k.registers},
                       {"shared_bytes", k.shared_bytes},
                       {"stack_bytes", k.stack_bytes},
                       {"spill_store_bytes", k.spill_store_bytes},
                       {"spill_load_bytes", k.spill_load_bytes}});
  }
  return {
      {"succeeded", out.succeeded}, {"log", out.log},         {"log_truncated", out.log_truncated},
      {"failure", out.failure},     {"seconds", out.seconds}, {"kernels", kernels}};
}

// An entry's output, or nullopt when it is unreadable (a half-removed entry, another version).
std::optional<CompileOutput> output_from(const Json& j) {
  try {
    CompileOutput out;
    out.succeeded = j.at("succeeded").get<bool>();
    out.log = j.at("log").get<std::string>();
    out.log_truncated = j.at("log_truncated").get<bool>();
    out.failure = j.at("failure").get<std::string>();
    out.seconds = j.at("seconds").get<double>();
    for (const auto& k : j.at("kernels")) {
      out.kernels.push_back({.name = k.at("name").get<std::string>(),
                             .registers = k.at("registers").get<int>(),
                             .shared_bytes = k.at("shared_bytes").get<int>(),
                             .stack_bytes = k.at("stack_bytes").get<int>(),
                             .spill_store_bytes = k.at("spill_store_bytes").get<int>(),
                             .spill_load_bytes = k.at("spill_load_bytes").get<int>()});
    }
    return out;
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

std::uint64_t folder_bytes(const std::filesystem::path& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

bool copy_entry_file(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::error_code ec;
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing, ec);
  return !ec;
}

}  // namespace

CompileCache::CompileCache(std::filesystem::path dir, std::uint64_t max_bytes)
    : dir_(std::move(dir)), max_bytes_(max_bytes) {}

std::filesystem::path CompileCache::entry_dir(const CompileKey& key) const {
  util::Fnv1a64 hash;
  hash.add(key.code).add(key.toolchain);
  for (const auto& argument : key.command) hash.add(argument);
  return dir_ / hash.hex();
}

std::optional<CompileOutput> CompileCache::find(const CompileKey& key,
                                                const std::filesystem::path& work_dir) {
  const auto start = std::chrono::steady_clock::now();
  const auto entry = entry_dir(key);
  auto miss = [this]() -> std::optional<CompileOutput> {
    std::lock_guard lock(mutex_);
    ++stats_.misses;
    return std::nullopt;
  };
  auto stored_key = util::read_file(entry / kKeyFile, util::kMaxRecordFileBytes);
  // The stored text itself must equal the key: a hash collision is a miss, never a wrong hit.
  if (!stored_key || *stored_key != key_json(key).dump()) return miss();
  auto stored_output = util::read_file(entry / kOutputFile, util::kMaxRecordFileBytes);
  if (!stored_output) return miss();
  auto parsed = Json::parse(*stored_output, nullptr, /*allow_exceptions=*/false);
  auto output = parsed.is_discarded() ? std::nullopt : output_from(parsed);
  if (!output) return miss();
  output->command = key.command;
  std::error_code ignored;
  std::filesystem::create_directories(work_dir, ignored);
  util::write_file_atomic(work_dir / kSourceFileName, key.code);
  if (output->succeeded) {
    if (!copy_entry_file(entry / kObjectFileName, work_dir / kObjectFileName) ||
        !copy_entry_file(entry / kDependencyFileName, work_dir / kDependencyFileName)) {
      return miss();
    }
    output->shared_object = work_dir / kObjectFileName;
  }
  output->cached = true;
  output->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Last use, for the least-recently-used eviction.
  std::filesystem::last_write_time(entry, std::filesystem::file_time_type::clock::now(), ignored);
  std::lock_guard lock(mutex_);
  ++stats_.hits;
  return output;
}

void CompileCache::store(const CompileKey& key, const CompileOutput& output,
                         const std::filesystem::path& work_dir) {
  if (output.cached) return;
  const auto entry = entry_dir(key);
  std::error_code ec;
  if (std::filesystem::exists(entry, ec)) return;  // another process was first
  std::filesystem::create_directories(dir_, ec);
  // Assembled beside its final place, then renamed: readers see a whole entry or none.
  const auto staging =
      dir_ / (".staging-" + std::to_string(::getpid()) + "-" + entry.filename().string());
  std::filesystem::remove_all(staging, ec);
  if (!std::filesystem::create_directory(staging, ec)) return;
  bool ok = util::write_cache_file(staging / kKeyFile, key_json(key).dump()) &&
            util::write_cache_file(staging / kOutputFile, output_json(output).dump());
  if (ok && output.succeeded) {
    ok = copy_entry_file(work_dir / kObjectFileName, staging / kObjectFileName) &&
         copy_entry_file(work_dir / kDependencyFileName, staging / kDependencyFileName);
  }
  if (ok) std::filesystem::rename(staging, entry, ec);
  if (!ok || ec) {
    std::filesystem::remove_all(staging, ec);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    ++stats_.stores;
  }
  evict_over_budget();
}

void CompileCache::evict_over_budget() {
  if (max_bytes_ == 0) return;
  const auto kept = util::evict_least_recently_used(
      dir_, max_bytes_,
      [](const std::filesystem::directory_entry& entry) -> std::optional<std::uint64_t> {
        std::error_code ec;
        if (!entry.is_directory(ec) || entry.path().filename().string().starts_with("."))
          return std::nullopt;
        return folder_bytes(entry.path());
      });
  std::lock_guard lock(mutex_);
  stats_.evictions += kept.removed;
}

CompileCacheStats CompileCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace ptxbench::compile
