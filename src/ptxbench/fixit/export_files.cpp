#include "ptxbench/fixit/export_files.hpp"

#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/hash.hpp"

namespace ptxbench::fixit {

namespace fs = std::filesystem;

std::string export_file(const std::string& split, const std::string& kind) {
  return split + "/" + kind + ".jsonl";
}

ExportFiles write_export(const fs::path& dir, const ExportedSet& set) {
  ExportFiles out;
  util::Fnv1a64 hash;
  for (const char* split : kSplits) {
    fs::create_directories(dir / split);
    for (const char* kind : kKinds) {
      const auto& rows = std::string_view(kind) == "fixit" ? set.fixit : set.kernelgen;
      std::vector<nlohmann::json> lines;
      for (const auto& row : rows)
        if (row.split == split) lines.push_back(to_json(row));
      std::string text = to_jsonl(lines);
      hash.add(text);
      util::write_file_atomic(dir / export_file(split, kind), text);
      if (!lines.empty()) out.data_files[split].push_back(export_file(split, kind));
    }
  }
  out.content_hash = hash.hex();
  return out;
}

std::vector<fs::path> export_paths(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const char* split : kSplits)
    for (const char* kind : kKinds) out.push_back(dir / export_file(split, kind));
  return out;
}

}  // namespace ptxbench::fixit
