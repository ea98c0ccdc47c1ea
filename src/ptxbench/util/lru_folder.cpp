#include "ptxbench/util/lru_folder.hpp"

#include <algorithm>
#include <vector>

namespace ptxbench::util {

LruEviction evict_least_recently_used(const std::filesystem::path& dir, std::uint64_t max_bytes,
                                      const EntrySize& entry_size) {
  struct Entry {
    std::filesystem::path path;
    std::filesystem::file_time_type used;
    std::uint64_t bytes;
  };
  std::vector<Entry> entries;
  LruEviction result;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto bytes = entry_size(*it);
    if (!bytes) continue;
    std::error_code entry_ec;
    const auto used = it->last_write_time(entry_ec);
    if (entry_ec) continue;  // removed meanwhile by another process
    entries.push_back({it->path(), used, *bytes});
    result.bytes_left += *bytes;
  }
  if (max_bytes == 0 || result.bytes_left <= max_bytes) return result;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const auto& entry : entries) {
    if (result.bytes_left <= max_bytes) break;
    std::error_code removed;
    std::filesystem::remove_all(entry.path, removed);
    result.bytes_left -= entry.bytes;
    if (!removed) ++result.removed;
  }
  return result;
}

}  // namespace ptxbench::util
