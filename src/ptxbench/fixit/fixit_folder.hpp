// A Fixit folder: the rows of every stage as JSON Lines, each file published atomically, and
// the repair stage's run directory. One process at a time works on a folder (util::FolderLock on
// FIXIT/.lock, released by the kernel even when the process is killed).
//   mined.jsonl  manifest.json  selections/<recipe>.json  repair/ (a run directory)
//   repairs.jsonl  verified.jsonl  explained.jsonl
//   export/<recipe>/{fixit,kernelgen}.jsonl,README.md
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/fixit/rows.hpp"
#include "ptxbench/util/expected.hpp"
#include "ptxbench/util/folder_lock.hpp"

namespace ptxbench::fixit {

inline constexpr const char* kMinedFile = "mined.jsonl";
inline constexpr const char* kRepairsFile = "repairs.jsonl";
inline constexpr const char* kVerifiedFile = "verified.jsonl";
inline constexpr const char* kExplainedFile = "explained.jsonl";

// Every stage's rows of one folder, read together (export and retrieval join them by mined id).
struct FolderRows {
  std::vector<MinedRow> mined;
  std::vector<RepairRow> repairs;
  std::vector<VerifiedRow> verified;
  std::vector<ExplainedRow> explained;
};

// The rows of the Fixit folder at `root` without taking its lock: the report reads a folder that
// a stage may be writing (each file is published whole). Absent files read as no rows; the first
// bad file is named (`file:line: problem`).
util::Expected<FolderRows> read_folder_rows(const std::filesystem::path& root);

class FixitFolder {
 public:
  static util::Expected<FixitFolder> open(const std::filesystem::path& root);
  FixitFolder(FixitFolder&& other) noexcept = default;
  FixitFolder& operator=(FixitFolder&&) = delete;
  FixitFolder(const FixitFolder&) = delete;
  FixitFolder& operator=(const FixitFolder&) = delete;
  ~FixitFolder() = default;

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path mined_path() const { return root_ / kMinedFile; }
  std::filesystem::path manifest_path() const { return root_ / "manifest.json"; }
  std::filesystem::path selection_path(const std::string& recipe) const;
  std::filesystem::path repair_dir() const { return root_ / "repair"; }
  std::filesystem::path repairs_path() const { return root_ / kRepairsFile; }
  std::filesystem::path verified_path() const { return root_ / kVerifiedFile; }
  std::filesystem::path explained_path() const { return root_ / kExplainedFile; }
  std::filesystem::path export_dir(const std::string& recipe) const;

  // Absent files read as no rows.
  util::Expected<std::vector<MinedRow>> read_mined() const;
  util::Expected<std::vector<RepairRow>> read_repairs() const;
  util::Expected<std::vector<VerifiedRow>> read_verified() const;
  util::Expected<std::vector<ExplainedRow>> read_explained() const;
  // The four files above, as read_folder_rows.
  util::Expected<FolderRows> read_all() const { return read_folder_rows(root_); }

  void write_mined(const std::vector<MinedRow>& rows) const;
  void write_repairs(const std::vector<RepairRow>& rows) const;
  void write_verified(const std::vector<VerifiedRow>& rows) const;
  void write_explained(const std::vector<ExplainedRow>& rows) const;

  // Appends {"stage", "at", "settings"} to fixit.json's "stages", the folder's own history.
  void record_stage(const std::string& stage, const nlohmann::json& settings) const;

 private:
  FixitFolder(std::filesystem::path root, util::FolderLock lock)
      : root_(std::move(root)), lock_(std::move(lock)) {}
  std::filesystem::path root_;
  util::FolderLock lock_;
};

// JSON Lines: one object per line. Reading names the file and line of a bad row.
util::Expected<std::vector<nlohmann::json>> read_jsonl(const std::filesystem::path& path);
std::string to_jsonl(const std::vector<nlohmann::json>& rows);

}  // namespace ptxbench::fixit
