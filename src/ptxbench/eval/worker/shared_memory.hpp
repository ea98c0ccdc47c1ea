// Host memory two processes share through a descriptor (memfd): the warm judge's exchange
// memory where the device's own cannot be shared, and what the CPU stand-in of the worker uses.
// Mapped read-write in both; the mapping and the descriptor end with the object.
#pragma once
#include <cstddef>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::worker {

class SharedMemory {
 public:
  SharedMemory() = default;
  SharedMemory(SharedMemory&& other) noexcept;
  SharedMemory& operator=(SharedMemory&& other) noexcept;
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  ~SharedMemory();

  // New memory of `bytes`, zeroed, with a descriptor to hand over.
  static util::Expected<SharedMemory> create(std::size_t bytes);
  // The peer's memory of `bytes` behind `fd` (the descriptor stays the caller's).
  static util::Expected<SharedMemory> map(int fd, std::size_t bytes);

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  int fd() const { return fd_; }  // -1 for a mapping of someone else's descriptor

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  int fd_ = -1;
};

}  // namespace ptxbench::eval::worker
