#include "ptxbench/util/fs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <signal.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "ptxbench/util/check.hpp"

namespace ptxbench::util {

namespace {

std::string_view kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

Expected<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return make_error(path.string() + ": cannot open: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) return make_error(path.string() + ": " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) {
    return make_error(
        fmt::format("{}: {}; only regular files are read", path.string(), kind_of(info.st_mode)));
  }
  const auto too_large = [&] {
    return make_error(fmt::format("{}: larger than {} bytes (the limit for this kind of file)",
                                  path.string(), max_bytes));
  };
  if (static_cast<std::uintmax_t>(info.st_size) > max_bytes) return too_large();
  std::string content;
  content.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return make_error(path.string() + ": read error: " + std::strerror(errno));
    if (n == 0) break;
    if (content.size() + static_cast<std::size_t>(n) > max_bytes) return too_large();  // it grew
    content.append(buffer, static_cast<std::size_t>(n));
  }
  return content;
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

bool write_cache_file(const std::filesystem::path& path, std::string_view content) noexcept {
  try {
    write_file_atomic(path, content);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

int remove_stale_temp_dirs(const std::filesystem::path& dir, std::string_view prefix) {
  int removed = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix)) continue;
    // <prefix...><pid>-XXXXXX: the pid is the run of digits before the last '-'.
    const std::string_view whole(name);
    const auto dash = whole.rfind('-');
    if (dash == std::string_view::npos || whole.size() - dash != 7 || dash < prefix.size())
      continue;
    auto digits_begin = whole.find_last_not_of("0123456789", dash - 1);
    digits_begin = digits_begin == std::string_view::npos ? 0 : digits_begin + 1;
    pid_t owner = 0;
    auto [end_of_pid, parse_error] =
        std::from_chars(whole.data() + digits_begin, whole.data() + dash, owner);
    if (parse_error != std::errc() || owner <= 0 || end_of_pid != whole.data() + dash) {
      continue;  // not named by a TempDir
    }
    struct stat info {};
    if (::lstat(it->path().c_str(), &info) != 0 || !S_ISDIR(info.st_mode) ||
        info.st_uid != ::getuid()) {
      continue;
    }
    if (::kill(owner, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to judge)
    std::error_code ignored;
    if (std::filesystem::remove_all(it->path(), ignored) > 0) ++removed;
  }
  return removed;
}

TempDir::TempDir(std::string_view prefix) {
  auto base = std::filesystem::temp_directory_path();
  static std::once_flag swept;
  std::call_once(swept, [&] { remove_stale_temp_dirs(base, "ptxbench-"); });
  std::string tmpl =
      (base / fmt::format("{}{}-XXXXXX", prefix, static_cast<long>(::getpid()))).string();
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
