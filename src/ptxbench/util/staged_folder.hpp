// An output folder written atomically: the command builds it in a staging sibling
// (<parent>/.<name>.staging-<pid>-<n>) and publish() swaps it into place, so readers see the old
// folder or the complete new one, and a refusal half-way leaves the old folder as it was (the
// staging folder is removed on destruction unless published).
#pragma once
#include <filesystem>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::util {

class StagedFolder {
 public:
  enum class Start {
    kEmpty,     // the new folder holds only what the command writes
    kExisting,  // it starts as a copy of the existing folder (a merge that updates, an export
                // into a folder holding other files)
  };
  // An error ("OUT: exists and is not a folder", "OUT: Permission denied") when `out` cannot
  // become a folder; nothing is created then.
  static Expected<StagedFolder> begin(const std::filesystem::path& out, Start start);

  StagedFolder(StagedFolder&& other) noexcept;
  StagedFolder& operator=(StagedFolder&&) = delete;
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;
  ~StagedFolder();

  // Where to write; becomes `out` on publish().
  const std::filesystem::path& path() const { return staging_; }
  const std::filesystem::path& out() const { return out_; }
  // Puts the staged folder in place of `out` (an atomic exchange where the file system has
  // one), then removes the previous folder.
  Expected<std::filesystem::path> publish();

 private:
  StagedFolder(std::filesystem::path out, std::filesystem::path staging)
      : out_(std::move(out)), staging_(std::move(staging)) {}
  std::filesystem::path out_;
  std::filesystem::path staging_;  // empty once published or moved from
};

// "PATH: exists and is not a folder" when PATH is anything but a folder or missing.
Expected<std::filesystem::path> check_output_folder(const std::filesystem::path& out);

}  // namespace ptxbench::util
