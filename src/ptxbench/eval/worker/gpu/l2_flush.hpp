// Evicts the GPU's L2 before a timed call (nvbench's method): writing a buffer twice the L2's
// size, queried from the device, leaves none of the previous data cached.
#pragma once
#include <cuda_runtime.h>

#include "ptxbench/eval/worker/gpu/device_buffer.hpp"

namespace ptxbench::eval::gpu {

class L2Flusher {
 public:
  L2Flusher();
  void flush(cudaStream_t stream);
  std::size_t bytes() const { return buffer_.bytes(); }

 private:
  DeviceBuffer buffer_;
  unsigned char value_ = 0;  // changes every flush so no write is a no-op
};

}  // namespace ptxbench::eval::gpu
