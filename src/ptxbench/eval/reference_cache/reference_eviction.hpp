// The parent's side of the reference cache (reference_store.hpp): after each verdict it keeps the
// folder within its byte budget, removing the least recently used entries first (a hit refreshes
// an entry's modification time). Temp files of an unfinished publish are not entries.
#pragma once
#include <cstdint>
#include <filesystem>

namespace ptxbench::eval::reference_cache {

// The default budget of the folder.
inline constexpr std::uint64_t kReferenceCacheBytes = std::uint64_t{16} << 30;

struct Eviction {
  std::uint64_t removed = 0;     // entries removed
  std::uint64_t bytes_left = 0;  // bytes of the entries kept
};

// Removes least-recently-used entries of `dir` until they hold at most `max_bytes` (0: no limit).
Eviction evict_references(const std::filesystem::path& dir, std::uint64_t max_bytes);

}  // namespace ptxbench::eval::reference_cache
