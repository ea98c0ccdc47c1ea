// fence: ordering between threads and between the generic and the async proxy (sm_90).
// The async proxy is the path of TMA and of wgmma/tcgen05 operand reads: ordinary stores to shared
// memory are invisible to it until the storing thread issues fence.proxy.async.
//
// Single source of truth: solutions embed the block between the markers verbatim and
// tests/solutions checks every copy against this file.
#pragma once
#include <cstdint>

// ptx-begin: fence
namespace ptx {

// fence.proxy.async.shared::cta — each thread that wrote shared memory with ordinary stores
// (st.shared, stmatrix), before the barrier after which TMA or the tensor cores read it.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// fence.mbarrier_init.release.cluster — the initialising thread, after mbarrier.init and before
// the CTA/cluster barrier: makes the initialised barriers visible to the async proxy and to peers.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// bar.sync id, threads — `threads` threads (a multiple of 32, whole warps) meet at named barrier
// `id` (0 is __syncthreads); orders their shared-memory accesses.
__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// bar.arrive id, threads — whole warps; count this warp's arrival at named barrier `id` without
// waiting (a producer/consumer hand-off: the waiting side uses bar.sync with the same count).
__device__ __forceinline__ void named_barrier_arrive(uint32_t id, uint32_t threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// st.release.gpu.global.b32 — a thread; publishes `value` after every write that happens before
// it (its own, and other threads' ordered before it by a barrier), for any CTA of the GPU.
__device__ __forceinline__ void store_release_gpu(int* flag, int value) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}

// ld.acquire.gpu.global.b32 — a thread; reads a flag so that whatever was published before the
// matching release is visible to this thread's later reads (and, after a barrier, to its CTA's).
__device__ __forceinline__ int load_acquire_gpu(const int* flag) {
  int value;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(value) : "l"(flag) : "memory");
  return value;
}

}  // namespace ptx
// ptx-end: fence
