// The hand-back of a one-stage ring as the expert backward does it, under racecheck: a producer
// thread refills the stage with cp.async.bulk after waiting on `empty`; two consumer warps read
// the stage after waiting on `full`, then fence.proxy.async, a named barrier over both, and one
// arrival per warp on `empty`. `./stage_handback handback` is that order (correct by the PTX
// memory model); `./stage_handback early` arrives before reading (a real write-after-read race).
// The other modes (enum Mode) tell which orderings racecheck follows.
// `./stage_handback ring2` is the backward's own shape: a two-stage ring with phases, two consumer
// warpgroups of 128 threads reading float2, and thread 0 of each warpgroup arriving on `empty`
// after the named barrier over both. benchmarks/device/tool-facts/racecheck.sh runs them all.
#include <cuda.h>
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

// How the ring is driven: the backward's hand-back and variants that tell what racecheck follows.
enum class Mode {
  kHandback,         // the backward's order (correct)
  kEarly,            // consumers hand the stage back before reading (racy)
  kProducerFence,    // kHandback, and the producer fences the async proxy before each copy
  kAllArrive,        // every consumer thread arrives on `empty` itself, no named barrier
  kGeneric,          // the producer warp refills with plain loads and stores, each lane arrives
  kGenericEarly,     // kGeneric with the consumers' early hand-back (racy)
  kTensor,           // kHandback with a tensor TMA load (cp.async.bulk.tensor) as the refill
  kTensorAllArrive,  // kTensor with every consumer thread arriving itself
};
constexpr int kModes = 8;

__global__ void ring(const float* src, float* out, Mode mode,
                     const __grid_constant__ CUtensorMap rows) {
  __shared__ alignas(128) float stage[kFloats];
  __shared__ alignas(8) std::uint64_t full_bar, empty_bar;
  const auto full = static_cast<std::uint32_t>(__cvta_generic_to_shared(&full_bar));
  const auto empty = static_cast<std::uint32_t>(__cvta_generic_to_shared(&empty_bar));
  const auto dst = static_cast<std::uint32_t>(__cvta_generic_to_shared(stage));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const bool generic = mode == Mode::kGeneric || mode == Mode::kGenericEarly;
  const bool early = mode == Mode::kEarly || mode == Mode::kGenericEarly;
  const bool all_arrive = mode == Mode::kAllArrive || mode == Mode::kTensorAllArrive;
  const bool tensor = mode == Mode::kTensor || mode == Mode::kTensorAllArrive;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(full), "r"(generic ? 32 : 1));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(empty),
                 "r"(all_arrive ? kConsumerThreads : 2));  // else one per consumer warp
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (warp == 0) {
    if (generic) {
      for (int step = 0; step < kSteps; ++step) {
        if (step > 0) wait_parity(empty, (step - 1) & 1);
        const float* from = src + (blockIdx.x * kSteps + step) * kFloats;
        for (int i = lane; i < kFloats; i += 32) stage[i] = from[i];
        arrive(full);
      }
      return;
    }
    if (lane != 0) return;
    for (int step = 0; step < kSteps; ++step) {
      if (step > 0) wait_parity(empty, (step - 1) & 1);
      if (mode == Mode::kProducerFence) {
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      }
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(full),
                   "r"(kFloats * 4)
                   : "memory");
      if (tensor) {  // one row of the [blocks * kSteps, kFloats] tensor
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], "
            "[%1, {%2, %3}], [%4];" ::"r"(dst),
            "l"(&rows), "r"(0), "r"(blockIdx.x * kSteps + step), "r"(full)
            : "memory");
        continue;
      }
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
    if (all_arrive) {
      arrive(empty);
      continue;
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("bar.sync 1, %0;" ::"n"(kConsumerThreads) : "memory");
    if (!early && lane == 0) arrive(empty);
  }
  out[blockIdx.x * kConsumerThreads + threadIdx.x - 32] = acc;
}

// The backward's shape: kStages-deep ring, the producer is thread 0 of warpgroup 0, consumers are
// warpgroups 1 and 2; a consumer thread reads two floats of the stage per step.
constexpr int kRingStages = 2;
constexpr int kGroupThreads = 128;

__global__ void ring2(const float* src, float* out) {
  __shared__ alignas(128) float stage[kRingStages][kFloats];
  __shared__ alignas(8) std::uint64_t full_bar[kRingStages], empty_bar[kRingStages];
  const int group = threadIdx.x / kGroupThreads, thread_in_group = threadIdx.x % kGroupThreads;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kRingStages; ++s) {
      const auto full = static_cast<std::uint32_t>(__cvta_generic_to_shared(&full_bar[s]));
      const auto empty = static_cast<std::uint32_t>(__cvta_generic_to_shared(&empty_bar[s]));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(full));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" ::"r"(empty));  // one per consumer
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (group == 0) {
    if (thread_in_group != 0) return;
    int s = 0, phase = 0;
    for (int step = 0; step < kSteps; ++step) {
      const auto full = static_cast<std::uint32_t>(__cvta_generic_to_shared(&full_bar[s]));
      const auto empty = static_cast<std::uint32_t>(__cvta_generic_to_shared(&empty_bar[s]));
      wait_parity(empty, phase ^ 1);  // the first pass finds every stage free
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(full),
                   "r"(kFloats * 4)
                   : "memory");
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
          "[%3];" ::"r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(stage[s]))),
          "l"(src + (blockIdx.x * kSteps + step) * kFloats), "r"(kFloats * 4), "r"(full)
          : "memory");
      if (++s == kRingStages) s = 0, phase ^= 1;
    }
    return;
  }
  float acc = 0;
  int s = 0, phase = 0;
  for (int step = 0; step < kSteps; ++step) {
    wait_parity(static_cast<std::uint32_t>(__cvta_generic_to_shared(&full_bar[s])), phase);
    const float2 v = *reinterpret_cast<const float2*>(&stage[s][2 * (thread_in_group % 64)]);
    acc += v.x * v.y;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("bar.sync 1, %0;" ::"n"(2 * kGroupThreads) : "memory");
    if (thread_in_group == 0)
      arrive(static_cast<std::uint32_t>(__cvta_generic_to_shared(&empty_bar[s])));
    if (++s == kRingStages) s = 0, phase ^= 1;
  }
  out[blockIdx.x * 2 * kGroupThreads + threadIdx.x - kGroupThreads] = acc;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "handback";
  const char* const names[kModes] = {
      "handback", "early",         "producer_fence", "all_arrive",
      "generic",  "generic_early", "tensor",         "tensor_all_arrive"};
  const int blocks = 32;
  float *src = nullptr, *out = nullptr;
  cudaMalloc(&src, blocks * kSteps * kFloats * sizeof(float));
  cudaMalloc(&out, blocks * 2 * kGroupThreads * sizeof(float));
  cudaMemset(src, 0, blocks * kSteps * kFloats * sizeof(float));
  if (std::strcmp(mode, "ring2") == 0) {
    ring2<<<blocks, 3 * kGroupThreads>>>(src, out);
  } else {
    int m = 0;
    while (m < kModes && std::strcmp(mode, names[m]) != 0) ++m;
    if (m == kModes) {
      std::printf("stage_handback: unknown mode %s\n", mode);
      return 2;
    }
    // The same source as a 2-D fp32 tensor of blocks * kSteps rows, one row per TMA box.
    CUtensorMap rows{};
    const cuuint64_t dims[2] = {kFloats, static_cast<cuuint64_t>(blocks) * kSteps};
    const cuuint64_t strides[1] = {kFloats * sizeof(float)};
    const cuuint32_t box[2] = {kFloats, 1}, unit[2] = {1, 1};
    if (cuTensorMapEncodeTiled(&rows, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, src, dims, strides, box,
                               unit, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                               CU_TENSOR_MAP_L2_PROMOTION_NONE,
                               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
      std::printf("stage_handback: cuTensorMapEncodeTiled failed\n");
      return 2;
    }
    ring<<<blocks, 32 + kConsumerThreads>>>(src, out, static_cast<Mode>(m), rows);
  }
  const cudaError_t status = cudaDeviceSynchronize();
  std::printf("stage_handback %s: %s\n", mode, cudaGetErrorString(status));
  cudaFree(src);
  cudaFree(out);
  return status == cudaSuccess ? 0 : 1;
}
