// Limits an untrusted worker puts on itself before it loads a candidate. Host memory: CUDA
// reserves large virtual ranges (at start, and for every stream-ordered memory pool), so an
// address-space limit (RLIMIT_AS) breaks it even when set after start-up (measured: the naive
// attention backward's cudaMallocAsync failed with "out of memory"). The worker limits its data
// segment instead (RLIMIT_DATA: private writable mappings, which is what malloc uses and what
// address reservations are not), to what it already uses plus a budget. Device memory: the worker
// reserves all free device memory beyond the budget, so the candidate's allocations fail there.
#pragma once
#include <cstdint>
#include <optional>

#include "ptxbench/eval/gpu/device_buffer.hpp"

namespace ptxbench::eval::gpu {

// Current data segment of this process (bytes): VmData in /proc/self/status.
std::optional<std::uint64_t> data_segment_bytes();

// RLIMIT_DATA = current data segment + budget. False when it could not be set.
bool limit_host_memory(std::uint64_t budget_bytes);

// Holds the device memory a candidate may not use. Invariant: `reserved_` is released with it.
class DeviceMemoryCap {
 public:
  DeviceMemoryCap() = default;
  // Leaves at most `budget_bytes` of the device's free memory allocatable.
  explicit DeviceMemoryCap(std::uint64_t budget_bytes);
  std::uint64_t reserved_bytes() const { return reserved_.bytes(); }

 private:
  DeviceBuffer reserved_;
};

}  // namespace ptxbench::eval::gpu
