// The reference cache: the trusted judge's outputs for one trial — the library's outputs and the
// high-precision reference — kept on the host so that a trial whose inputs recur (a seed drawn
// from a pool, --seed-pool) is not recomputed (docs/gpu-engine.md, "Reference cache").
//
// An entry is keyed by everything that decides those outputs: the task (task_fingerprint.hpp),
// the workload, the trial's seed, and the GPU with its driver, CUDA, cuBLASLt and cuDNN versions
// (the worker's fingerprint). Only the trusted `worker judge` reads and writes the folder; no
// candidate process is shown it, and a candidate's outputs are never stored. Entries are files
// published by rename; the parent evicts them least-recently-used first beyond a byte budget
// (reference_eviction.hpp). A damaged, foreign or mis-sized entry is a miss, never a hit.
#pragma once
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::reference_cache {

// The judge job's field: where the cache lies and what, beside the trial, keys its entries.
// An empty `dir` turns the cache off.
struct ReferenceCacheRequest {
  std::filesystem::path dir;
  std::string task;  // task_fingerprint of the task judged
  std::string gpu;   // the worker's fingerprint: GPU, driver, CUDA, cuBLASLt, cuDNN, memory

  bool enabled() const { return !dir.empty(); }
};

nlohmann::json to_json(const ReferenceCacheRequest& request);
// Throws worker::ProtocolError on a malformed field (the job reader's convention).
ReferenceCacheRequest reference_cache_request_from_json(const nlohmann::json& json);

// What decides a trial's reference outputs.
struct ReferenceKey {
  std::string task;
  std::string workload;
  std::uint64_t trial_seed = 0;
  std::string gpu;

  std::string text() const;  // canonical; the entry stores it, so a hash collision is a miss
};

// One trial's outputs, in job output order: the library's bytes, and the fp32 high-precision
// reference per output, or why there is none.
struct ReferenceEntry {
  std::vector<std::vector<char>> library;
  std::vector<std::vector<char>> reference;
  std::string reference_unavailable;
};

// The sizes a trial's entry must have to be used: per output, the library's bytes and the
// reference's bytes (elements x 4).
struct ReferenceShape {
  std::vector<std::size_t> library_bytes;
  std::vector<std::size_t> reference_bytes;
};

std::filesystem::path entry_file(const std::filesystem::path& dir, const ReferenceKey& key);

// The entry for `key` when present, whole and of `shape`; refreshes its last use (LRU).
std::optional<ReferenceEntry> load_reference(const std::filesystem::path& dir,
                                             const ReferenceKey& key, const ReferenceShape& shape);

// Publishes `entry` (temp file + rename); false when the folder cannot take it (the cache then
// only costs the work it would have saved). An entry already there is left as it is.
bool store_reference(const std::filesystem::path& dir, const ReferenceKey& key,
                     const ReferenceEntry& entry);

// The largest entry kept: a trial whose outputs and reference exceed it (the largest attention
// workloads: several GB) is cheaper to recompute on the GPU than to write and read back.
inline constexpr std::uint64_t kMaxEntryBytes = std::uint64_t{1} << 30;

// The file name suffix of entries.
inline constexpr std::string_view kEntryExtension = ".ref";

}  // namespace ptxbench::eval::reference_cache
