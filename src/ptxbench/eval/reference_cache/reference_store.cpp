#include "ptxbench/eval/reference_cache/reference_store.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iterator>

#include "ptxbench/eval/worker/protocol_fields.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/hash.hpp"

namespace ptxbench::eval::reference_cache {
namespace {

using nlohmann::json;

// The first line of an entry; the second is its JSON header, then the bytes in header order.
constexpr std::string_view kMagic = "ptxbench reference v1";

std::vector<std::size_t> sizes_of(const std::vector<std::vector<char>>& blobs) {
  std::vector<std::size_t> sizes;
  for (const auto& blob : blobs) sizes.push_back(blob.size());
  return sizes;
}

}  // namespace

json to_json(const ReferenceCacheRequest& request) {
  return json{{"dir", request.dir.string()}, {"task", request.task}, {"gpu", request.gpu}};
}

ReferenceCacheRequest reference_cache_request_from_json(const json& j) {
  using worker::ProtocolError;
  ReferenceCacheRequest request;
  request.dir = worker::optional_or(j, "dir", std::string());
  request.task = worker::optional_or(j, "task", std::string());
  request.gpu = worker::optional_or(j, "gpu", std::string());
  // Entries keyed by nothing would mix tasks or GPUs: a folder without both keys is refused.
  if (request.enabled() && (request.task.empty() || request.gpu.empty()))
    throw ProtocolError("a cache folder needs its task and gpu fingerprints");
  if (request.enabled() && !request.dir.is_absolute())
    throw ProtocolError("dir: must be an absolute path");
  return request;
}

std::string ReferenceKey::text() const {
  return fmt::format("reference v1\ntask {}\nworkload {}\ntrial seed {}\ngpu {}\n", task, workload,
                     trial_seed, gpu);
}

std::filesystem::path entry_file(const std::filesystem::path& dir, const ReferenceKey& key) {
  return dir / (util::hash_hex(key.text()) + std::string(kEntryExtension));
}

std::optional<ReferenceEntry> load_reference(const std::filesystem::path& dir,
                                             const ReferenceKey& key, const ReferenceShape& shape) {
  const auto file = entry_file(dir, key);
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string magic, header_line;
  if (!std::getline(in, magic) || magic != kMagic || !std::getline(in, header_line))
    return std::nullopt;
  const json header = json::parse(header_line, nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) return std::nullopt;
  try {
    // The stored key must equal the key: a hash collision is a miss.
    if (header.at("key").get<std::string>() != key.text()) return std::nullopt;
    if (header.at("library").get<std::vector<std::size_t>>() != shape.library_bytes)
      return std::nullopt;
    auto reference = header.at("reference").get<std::vector<std::size_t>>();
    // No reference is a valid entry (its reason is kept); a partial one is not.
    if (!reference.empty() && reference != shape.reference_bytes) return std::nullopt;
    ReferenceEntry entry;
    entry.reference_unavailable = header.at("reference_unavailable").get<std::string>();
    if (reference.empty() && entry.reference_unavailable.empty()) return std::nullopt;
    auto read_blobs = [&](const std::vector<std::size_t>& sizes,
                          std::vector<std::vector<char>>& blobs) {
      for (std::size_t bytes : sizes) {
        std::vector<char> blob(bytes);
        in.read(blob.data(), static_cast<std::streamsize>(bytes));
        if (static_cast<std::size_t>(in.gcount()) != bytes) return false;
        blobs.push_back(std::move(blob));
      }
      return true;
    };
    if (!read_blobs(shape.library_bytes, entry.library) || !read_blobs(reference, entry.reference))
      return std::nullopt;
    // Exactly the bytes the header names: a longer file is not this entry.
    if (in.peek() != std::char_traits<char>::eof()) return std::nullopt;
    std::error_code ignored;  // last use, for the parent's least-recently-used eviction
    std::filesystem::last_write_time(file, std::filesystem::file_time_type::clock::now(), ignored);
    return entry;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

bool store_reference(const std::filesystem::path& dir, const ReferenceKey& key,
                     const ReferenceEntry& entry) {
  const auto file = entry_file(dir, key);
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) return true;  // another judge was first
  const json header{{"key", key.text()},
                    {"library", sizes_of(entry.library)},
                    {"reference", sizes_of(entry.reference)},
                    {"reference_unavailable", entry.reference_unavailable}};
  std::string bytes = std::string(kMagic) + "\n" + header.dump() + "\n";
  for (const auto* blobs : {&entry.library, &entry.reference}) {
    for (const auto& blob : *blobs) bytes.append(blob.data(), blob.size());
  }
  return util::write_cache_file(file, bytes);
}

}  // namespace ptxbench::eval::reference_cache
