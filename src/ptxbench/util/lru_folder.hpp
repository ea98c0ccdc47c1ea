// A cache folder kept within a byte budget: its entries (files or folders) are removed oldest
// use first (a hit refreshes an entry's modification time). The compile, verdict and reference
// caches share this.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>

namespace ptxbench::util {

struct LruEviction {
  std::uint64_t removed = 0;     // entries removed
  std::uint64_t bytes_left = 0;  // bytes of the entries kept
};

// The size of an entry of the folder, or nullopt when it is not one (another file, a temporary,
// gone meanwhile).
using EntrySize =
    std::function<std::optional<std::uint64_t>(const std::filesystem::directory_entry&)>;

// Removes the least recently used entries of `dir` until they hold at most `max_bytes`
// (0: no limit). Errors (an entry removed by another process meanwhile) only skip that entry.
LruEviction evict_least_recently_used(const std::filesystem::path& dir, std::uint64_t max_bytes,
                                      const EntrySize& entry_size);

}  // namespace ptxbench::util
