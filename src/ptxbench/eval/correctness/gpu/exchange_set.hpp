// One exchange set of the warm judge (correctness/session_protocol.hpp): memory the trusted judge
// owns and a candidate process maps, handed over as a descriptor. On the device it is a CUDA VMM
// allocation exported as a POSIX file descriptor (it crosses the sandbox's PID namespace, which
// legacy CUDA IPC handles do not); where the driver refuses that, shared host memory (memfd)
// that both sides copy through. The judge allocates a new set per session and frees it with the
// session: nothing of one candidate's set reaches the next.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "ptxbench/eval/correctness/session_protocol.hpp"
#include "ptxbench/eval/worker/shared_memory.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::gpu {

class ExchangeSet {
 public:
  ExchangeSet() = default;
  ExchangeSet(ExchangeSet&& other) noexcept;
  ExchangeSet& operator=(ExchangeSet&& other) noexcept;
  ExchangeSet(const ExchangeSet&) = delete;
  ExchangeSet& operator=(const ExchangeSet&) = delete;
  ~ExchangeSet();

  // The judge's side: new memory of at least `bytes`, exportable.
  static util::Expected<ExchangeSet> create(correctness::ExchangeKind kind, std::size_t bytes);
  // The candidate's side: the judge's memory behind `fd` (the descriptor stays the caller's).
  static util::Expected<ExchangeSet> import(correctness::ExchangeKind kind, int fd,
                                            std::size_t bytes);

  correctness::ExchangeKind kind() const { return kind_; }
  std::size_t bytes() const { return bytes_; }
  int fd() const { return fd_; }  // the exported descriptor (judge side), else -1
  // Device memory at `offset` (device sets); host memory at `offset` (host sets).
  void* device(std::uint64_t offset) const;
  std::byte* host(std::uint64_t offset) const;

 private:
  void release() noexcept;

  correctness::ExchangeKind kind_ = correctness::ExchangeKind::kHost;
  std::size_t bytes_ = 0;
  int fd_ = -1;
  // Device: the allocation's handle and the address range it is mapped at.
  unsigned long long handle_ = 0;
  std::uintptr_t address_ = 0;
  bool mapped_ = false;
  // Host: the shared mapping (registered with CUDA for fast copies).
  worker::SharedMemory memory_;
  bool registered_ = false;
};

}  // namespace ptxbench::eval::gpu
