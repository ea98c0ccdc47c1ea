// Does racecheck order a cp.async.bulk (completing on an mbarrier's transaction count) before the
// generic reads of threads that waited on that mbarrier? `./bulk_copy_reads wait` waits (correct
// by the PTX memory model), `./bulk_copy_reads nowait` reads without waiting (a real race).
// benchmarks/device/tool-facts/racecheck.sh runs both under compute-sanitizer's racecheck.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "mbarrier.cuh"

constexpr int kFloats = 128;

__global__ void copy_then_read(const float* src, float* out, bool wait) {
  __shared__ alignas(128) float staged[kFloats];
  __shared__ alignas(8) std::uint64_t full;
  const auto bar = static_cast<std::uint32_t>(__cvta_generic_to_shared(&full));
  const auto dst = static_cast<std::uint32_t>(__cvta_generic_to_shared(staged));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                 "r"(kFloats * 4)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
            "r"(dst),
        "l"(src + blockIdx.x * kFloats), "r"(kFloats * 4), "r"(bar)
        : "memory");
  }
  if (wait) wait_parity(bar, 0);
  out[blockIdx.x * blockDim.x + threadIdx.x] = staged[(threadIdx.x + 1) % kFloats];
  if (!wait) wait_parity(bar, 0);  // let the copy land before the block exits
}

int main(int argc, char** argv) {
  const bool wait = argc > 1 && std::strcmp(argv[1], "wait") == 0;
  const int blocks = 64;
  float *src = nullptr, *out = nullptr;
  cudaMalloc(&src, blocks * kFloats * sizeof(float));
  cudaMalloc(&out, blocks * kFloats * sizeof(float));
  cudaMemset(src, 0, blocks * kFloats * sizeof(float));
  copy_then_read<<<blocks, kFloats>>>(src, out, wait);
  const cudaError_t status = cudaDeviceSynchronize();
  std::printf("bulk_copy_reads %s: %s\n", wait ? "wait" : "nowait", cudaGetErrorString(status));
  cudaFree(src);
  cudaFree(out);
  return status == cudaSuccess ? 0 : 1;
}
