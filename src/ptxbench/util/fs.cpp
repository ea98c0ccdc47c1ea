#include "ptxbench/util/fs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ptxbench/util/check.hpp"

namespace ptxbench::util {

Expected<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path.string() + ": cannot open: " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return make_error(path.string() + ": read error");
  return buffer.str();
}

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::filesystem::create_directories(dir);
  std::string tmpl = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  PTXBENCH_CHECK(fd >= 0, tmpl + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      PTXBENCH_CHECK(false, tmpl + ": " + std::strerror(e));
    }
    done += static_cast<std::size_t>(n);
  }
  ::fchmod(fd, 0644);
  ::fsync(fd);
  ::close(fd);
  PTXBENCH_CHECK(::rename(tmpl.c_str(), path.c_str()) == 0,
                 path.string() + ": " + std::strerror(errno));
}

TempDir::TempDir(std::string_view prefix) {
  auto base = std::filesystem::temp_directory_path();
  std::string tmpl = (base / (std::string(prefix) + "XXXXXX")).string();
  PTXBENCH_CHECK(::mkdtemp(tmpl.data()) != nullptr, tmpl + ": " + std::strerror(errno));
  path_ = tmpl;
}

TempDir::TempDir(TempDir&& other) noexcept
    : path_(std::move(other.path_)), keep_(std::exchange(other.keep_, true)) {}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    if (!keep_ && !path_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(path_, ignored);
    }
    path_ = std::move(other.path_);
    keep_ = std::exchange(other.keep_, true);
  }
  return *this;
}

TempDir::~TempDir() {
  if (keep_ || path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace ptxbench::util
