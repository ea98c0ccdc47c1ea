// Files: whole-file read/write, atomic publication (write to a sibling temp file, fsync,
// rename), and a temporary directory removed with its contents on destruction.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::util {

Expected<std::string> read_file(const std::filesystem::path& path);

// Readers of the path see either the old content or the new, never a partial file.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// Owns a fresh directory; removes it recursively on destruction unless released with keep().
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

}  // namespace ptxbench::util
