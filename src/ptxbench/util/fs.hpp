// Files: whole-file read/write, atomic publication (write to a sibling temp file, fsync,
// rename), and a temporary directory removed with its contents on destruction.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::util {

// Input size caps (docs/running.md, "Limits"): every file ptxbench reads has one.
inline constexpr std::size_t kMaxFileBytes = 256u << 20;       // anything else (objects, caches)
inline constexpr std::size_t kMaxConfigFileBytes = 1u << 20;   // run.yaml, provider settings
inline constexpr std::size_t kMaxTaskFileBytes = 1u << 20;     // tasks/<family>/<name>.json
inline constexpr std::size_t kMaxRecordFileBytes = 64u << 20;  // trajectories, run.json

// The whole content of a regular file of at most max_bytes. A FIFO, a device (/dev/zero), a
// directory, a symlink loop or a larger file is an error naming the file; nothing blocks.
Expected<std::string> read_file(const std::filesystem::path& path,
                                std::size_t max_bytes = kMaxFileBytes);

// Readers of the path see either the old content or the new, never a partial file.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// A cache entry: written like write_file_atomic when the folder can take it, else left unwritten
// (a read-only or missing cache only costs the work it would have saved). False when not written.
bool write_cache_file(const std::filesystem::path& path, std::string_view content) noexcept;

// Owns a fresh directory <tmp>/<prefix><pid>-XXXXXX; removes it recursively on destruction
// unless released with keep(). The pid in the name marks the owner: the first TempDir of a
// process removes those of owners that died without cleaning up (killed with SIGKILL).
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "ptxbench-");
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::filesystem::path& path() const { return path_; }
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

// Removes <dir>/<prefix><pid>-* directories of this user whose process no longer exists;
// returns how many. Directories of live processes (or of another user) are left alone.
int remove_stale_temp_dirs(const std::filesystem::path& dir, std::string_view prefix);

}  // namespace ptxbench::util
