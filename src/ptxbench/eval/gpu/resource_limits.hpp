// Limits an untrusted worker puts on itself before it loads a candidate. Host memory: RLIMIT_AS
// cannot be set before CUDA starts (the driver reserves a large virtual address range), so the
// worker sets it after its own setup to what is mapped plus a budget. Device memory: the worker
// reserves all free device memory beyond the budget, so the candidate's allocations fail there.
#pragma once
#include <cstdint>
#include <optional>

#include "ptxbench/eval/gpu/device_buffer.hpp"

namespace ptxbench::eval::gpu {

// Current virtual size of this process (bytes), from /proc/self/status.
std::optional<std::uint64_t> virtual_memory_bytes();

// RLIMIT_AS = current virtual size + budget. False when it could not be set.
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
