// cluster: CTAs of one thread-block cluster (sm_90): their rank and their barrier.
//
// Single source of truth: solutions embed the block between the markers verbatim and
// tests/solutions checks every copy against this file.
#pragma once
#include <cstdint>

// ptx-begin: cluster
namespace ptx {

// %cluster_ctarank — a thread; this CTA's rank in its cluster (0 .. cluster size - 1).
__device__ __forceinline__ uint32_t cluster_cta_rank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}

// barrier.cluster.arrive.release + barrier.cluster.wait.acquire — every thread of every CTA in
// the cluster; shared-memory writes (barrier inits included) before it are visible to all after.
__device__ __forceinline__ void cluster_sync() {
  asm volatile(
      "barrier.cluster.arrive.release;\n"
      "barrier.cluster.wait.acquire;\n" ::
          : "memory");
}

}  // namespace ptx
// ptx-end: cluster
