// One process at a time in a folder: an exclusive flock on <folder>/.lock, held as long as the
// FolderLock lives. The kernel releases it when the descriptor closes, also when the process is
// killed, so a folder is never left locked by a dead process. Run directories and Fixit folders
// both hold one.
#pragma once
#include <filesystem>
#include <string_view>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::util {

class FolderLock {
 public:
  // Takes the lock of an existing folder without waiting. `what` names the folder in the error
  // ("run directory"): "<folder>: another ptxbench process is using this <what>".
  static Expected<FolderLock> acquire(const std::filesystem::path& folder, std::string_view what);

  FolderLock(FolderLock&& other) noexcept;
  FolderLock& operator=(FolderLock&& other) noexcept;
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock();

 private:
  explicit FolderLock(int fd) : fd_(fd) {}
  void release();
  int fd_ = -1;
};

}  // namespace ptxbench::util
