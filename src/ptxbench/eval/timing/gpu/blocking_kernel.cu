#include "ptxbench/eval/timing/gpu/blocking_kernel.hpp"
#include "ptxbench/eval/worker/gpu/cuda_check.hpp"

namespace ptxbench::eval::gpu {
namespace {

__device__ inline unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_until_released(volatile int* flags, unsigned long long timeout_ns) {
  unsigned long long start = global_timer_ns();
  while (flags[0] == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      flags[1] = 1;
      return;
    }
    __nanosleep(1000);
  }
}

}  // namespace

BlockingKernel::BlockingKernel(std::chrono::milliseconds timeout) : timeout_(timeout) {
  void* host = nullptr;
  PTXBENCH_CUDA_CHECK(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
  host_ = static_cast<volatile int*>(host);
  host_[0] = 1;
  host_[1] = 0;
  void* device = nullptr;
  PTXBENCH_CUDA_CHECK(cudaHostGetDevicePointer(&device, host, 0));
  device_ = static_cast<int*>(device);
}

BlockingKernel::~BlockingKernel() {
  host_[0] = 1;
  PTXBENCH_CUDA_WARN(cudaFreeHost(const_cast<int*>(host_)));
}

void BlockingKernel::block(cudaStream_t stream) {
  host_[0] = 0;
  host_[1] = 0;
  spin_until_released<<<1, 1, 0, stream>>>(
      device_, static_cast<unsigned long long>(timeout_.count()) * 1000000ull);
  PTXBENCH_CUDA_CHECK(cudaGetLastError());
}

void BlockingKernel::release() {
  host_[0] = 1;
}

bool BlockingKernel::timed_out() const {
  return host_[1] != 0;
}

}  // namespace ptxbench::eval::gpu
