#include "ptxbench/eval/worker/shared_memory.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace ptxbench::eval::worker {

SharedMemory::SharedMemory(SharedMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      fd_(std::exchange(other.fd_, -1)) {}

SharedMemory& SharedMemory::operator=(SharedMemory&& other) noexcept {
  if (this != &other) {
    this->~SharedMemory();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

SharedMemory::~SharedMemory() {
  if (data_ != nullptr) ::munmap(data_, size_);
  if (fd_ >= 0) ::close(fd_);
  data_ = nullptr;
  fd_ = -1;
}

util::Expected<SharedMemory> SharedMemory::create(std::size_t bytes) {
  const int fd = ::memfd_create("ptxbench-exchange", MFD_CLOEXEC);
  if (fd < 0) return util::make_error(std::string("memfd_create: ") + std::strerror(errno));
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    return util::make_error(fmt::format("memfd of {} bytes: {}", bytes, why));
  }
  auto mapped = map(fd, bytes);
  if (!mapped) {
    ::close(fd);
    return mapped.error();
  }
  mapped->fd_ = fd;
  return mapped;
}

util::Expected<SharedMemory> SharedMemory::map(int fd, std::size_t bytes) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return util::make_error(std::string("fstat: ") + std::strerror(errno));
  if (static_cast<std::size_t>(st.st_size) < bytes)
    return util::make_error(
        fmt::format("shared memory holds {} bytes, {} expected", st.st_size, bytes));
  void* at = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (at == MAP_FAILED) return util::make_error(std::string("mmap: ") + std::strerror(errno));
  SharedMemory memory;
  memory.data_ = static_cast<std::byte*>(at);
  memory.size_ = bytes;
  return memory;
}

}  // namespace ptxbench::eval::worker
