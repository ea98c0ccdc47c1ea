#include "ptxbench/util/folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace ptxbench::util {

Expected<FolderLock> FolderLock::acquire(const std::filesystem::path& folder,
                                         std::string_view what) {
  const std::filesystem::path lock = folder / ".lock";
  // O_CLOEXEC: a child process (nvcc, a teacher program) must not inherit the lock.
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return make_error(fmt::format("{}: {}", lock.string(), std::strerror(errno)));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK)
      return make_error(
          fmt::format("{}: another ptxbench process is using this {}", folder.string(), what));
    return make_error(fmt::format("{}: {}", lock.string(), std::strerror(error)));
  }
  return FolderLock(fd);
}

FolderLock::FolderLock(FolderLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

FolderLock& FolderLock::operator=(FolderLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FolderLock::~FolderLock() {
  release();
}

void FolderLock::release() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the flock
  fd_ = -1;
}

}  // namespace ptxbench::util
