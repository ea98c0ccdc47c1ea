#include "ptxbench/eval/reference_cache/reference_eviction.hpp"

#include "ptxbench/eval/reference_cache/reference_store.hpp"
#include "ptxbench/util/lru_folder.hpp"

namespace ptxbench::eval::reference_cache {

Eviction evict_references(const std::filesystem::path& dir, std::uint64_t max_bytes) {
  const auto kept = util::evict_least_recently_used(
      dir, max_bytes,
      [](const std::filesystem::directory_entry& entry) -> std::optional<std::uint64_t> {
        std::error_code ec;
        if (!entry.is_regular_file(ec) || entry.path().extension() != kEntryExtension)
          return std::nullopt;
        const std::uint64_t bytes = entry.file_size(ec);
        if (ec) return std::nullopt;
        return bytes;
      });
  return Eviction{.removed = kept.removed, .bytes_left = kept.bytes_left};
}

}  // namespace ptxbench::eval::reference_cache
