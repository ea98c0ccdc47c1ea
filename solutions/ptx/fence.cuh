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

}  // namespace ptx
// ptx-end: fence
