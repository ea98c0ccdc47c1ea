// The device-memory limit an untrusted worker puts on itself before calling a candidate: CUDA has
// no per-process allocation limit, so the worker reserves all free device memory beyond the
// budget, and the candidate's allocations fail there. (Host memory: worker/host_memory_guard.hpp.)
#pragma once
#include <cstdint>

#include "ptxbench/eval/worker/gpu/device_buffer.hpp"

namespace ptxbench::eval::gpu {

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
