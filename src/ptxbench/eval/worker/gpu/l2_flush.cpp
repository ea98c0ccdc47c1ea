#include "ptxbench/eval/worker/gpu/l2_flush.hpp"

namespace ptxbench::eval::gpu {
namespace {

std::size_t flush_bytes() {
  int device = 0, l2 = 0;
  PTXBENCH_CUDA_CHECK(cudaGetDevice(&device));
  PTXBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  return 2 * static_cast<std::size_t>(l2 > 0 ? l2 : (1 << 20));
}

}  // namespace

L2Flusher::L2Flusher() : buffer_(flush_bytes()) {}

void L2Flusher::flush(cudaStream_t stream) {
  PTXBENCH_CUDA_CHECK(cudaMemsetAsync(buffer_.data(), value_++, buffer_.bytes(), stream));
}

}  // namespace ptxbench::eval::gpu
