// Two kernels, the second on an mbarrier (SYNCS in its SASS): what ncu's per-opcode counts look
// like for a later kernel of a process (benchmarks/device/tool-facts.sh).
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

__global__ void plain_add(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

__global__ void on_mbarrier(float* x, int n) {
  __shared__ alignas(8) std::uint64_t bar;
  __shared__ float staged[128];
  const auto bar_addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar_addr), "r"(128));
  }
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  staged[threadIdx.x] = i < n ? x[i] : 0.0f;
  std::uint64_t state;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
               : "=l"(state)
               : "r"(bar_addr)
               : "memory");
  std::uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar_addr), "l"(state)
        : "memory");
  }
  if (i < n) x[i] = staged[(threadIdx.x + 1) % 128] * 2.0f;
}

int main() {
  const int n = 1 << 20;
  float* x = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  plain_add<<<n / 128, 128>>>(x, n);
  on_mbarrier<<<n / 128, 128>>>(x, n);
  on_mbarrier<<<n / 128, 128>>>(x, n);
  const cudaError_t status = cudaDeviceSynchronize();
  std::printf("two_kernels: %s\n", cudaGetErrorString(status));
  cudaFree(x);
  return status == cudaSuccess ? 0 : 1;
}
