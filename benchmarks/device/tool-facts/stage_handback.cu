// The hand-back of a one-stage ring as the expert backward does it, under racecheck: a producer
// thread refills the stage with cp.async.bulk after waiting on `empty`; two consumer warps read
// the stage after waiting on `full`, then fence.proxy.async, a named barrier over both, and one
// arrival per warp on `empty`. `./stage_handback handback` is that order (correct by the PTX
// memory model); `./stage_handback early` arrives before reading (a real write-after-read race).
// benchmarks/device/tool-facts/racecheck.sh runs both.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "mbarrier.cuh"

constexpr int kFloats = 128;
constexpr int kSteps = 8;
constexpr int kConsumerThreads = 64;

__device__ void arrive(std::uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

__global__ void ring(const float* src, float* out, bool early) {
  __shared__ alignas(128) float stage[kFloats];
  __shared__ alignas(8) std::uint64_t full_bar, empty_bar;
  const auto full = static_cast<std::uint32_t>(__cvta_generic_to_shared(&full_bar));
  const auto empty = static_cast<std::uint32_t>(__cvta_generic_to_shared(&empty_bar));
  const auto dst = static_cast<std::uint32_t>(__cvta_generic_to_shared(stage));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(full));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" ::"r"(empty));  // one per consumer warp
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (warp == 0) {
    if (lane != 0) return;
    for (int step = 0; step < kSteps; ++step) {
      if (step > 0) wait_parity(empty, (step - 1) & 1);
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(full),
                   "r"(kFloats * 4)
                   : "memory");
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
          "[%3];" ::"r"(dst),
          "l"(src + (blockIdx.x * kSteps + step) * kFloats), "r"(kFloats * 4), "r"(full)
          : "memory");
    }
    return;
  }
  float acc = 0;
  for (int step = 0; step < kSteps; ++step) {
    wait_parity(full, step & 1);
    if (early && lane == 0) arrive(empty);
    acc += stage[(threadIdx.x * 3 + step) % kFloats];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("bar.sync 1, %0;" ::"n"(kConsumerThreads) : "memory");
    if (!early && lane == 0) arrive(empty);
  }
  out[blockIdx.x * kConsumerThreads + threadIdx.x - 32] = acc;
}

int main(int argc, char** argv) {
  const bool early = argc > 1 && std::strcmp(argv[1], "early") == 0;
  const int blocks = 32;
  float *src = nullptr, *out = nullptr;
  cudaMalloc(&src, blocks * kSteps * kFloats * sizeof(float));
  cudaMalloc(&out, blocks * kConsumerThreads * sizeof(float));
  cudaMemset(src, 0, blocks * kSteps * kFloats * sizeof(float));
  ring<<<blocks, 32 + kConsumerThreads>>>(src, out, early);
  const cudaError_t status = cudaDeviceSynchronize();
  std::printf("stage_handback %s: %s\n", early ? "early" : "handback", cudaGetErrorString(status));
  cudaFree(src);
  cudaFree(out);
  return status == cudaSuccess ? 0 : 1;
}
