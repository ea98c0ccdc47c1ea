// The files of one export, laid out by split so that the folder loads with
// `datasets.load_dataset(FOLDER)` into its `train` and `heldout` splits (the card's `configs:`
// names them): <split>/fixit.jsonl and <split>/kernelgen.jsonl, each published atomically.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ptxbench/fixit/export_rows.hpp"

namespace ptxbench::fixit {

inline constexpr const char* kSplits[] = {"train", "heldout"};
inline constexpr const char* kKinds[] = {"fixit", "kernelgen"};

struct ExportFiles {
  // split -> the files (relative to the export folder) that hold rows of it; empty files are
  // written but not listed.
  std::map<std::string, std::vector<std::string>> data_files;
  std::string content_hash;  // FNV-1a 64 over every file, in split then kind order
};

// The relative path of a split's rows of one kind.
std::string export_file(const std::string& split, const std::string& kind);

ExportFiles write_export(const std::filesystem::path& dir, const ExportedSet& set);

// Every file of an export folder, in split then kind order (the trainer's --data).
std::vector<std::filesystem::path> export_paths(const std::filesystem::path& dir);

}  // namespace ptxbench::fixit
