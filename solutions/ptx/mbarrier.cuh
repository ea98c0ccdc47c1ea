// mbarrier: shared-memory barriers that count thread arrivals and, for asynchronous copies,
// transaction bytes (sm_90). A phase completes when its pending arrivals and pending bytes both
// reach zero; waiters name the phase by its parity (0, 1, 0, ...).
//
// Single source of truth: solutions embed the block between the markers verbatim and
// tests/solutions checks every copy against this file.
#pragma once
#include <cstdint>
#include <cstdio>

// ptx-begin: mbarrier
namespace ptx {

// mbarrier.init.shared::cta.b64 — one thread, before any use; phase 0 expects `arrivals`.
__device__ __forceinline__ void mbarrier_init(uint64_t* bar, uint32_t arrivals) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(addr), "r"(arrivals) : "memory");
}

// mbarrier.arrive.expect_tx.shared::cta.b64 — one thread; one arrival, and the current phase
// also waits for `bytes` more transaction bytes (completed by TMA's complete_tx).
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(addr), "r"(bytes)
               : "memory");
}

// mbarrier.arrive.shared::cta.b64 — a thread; one arrival on a barrier of its own CTA
// (release at CTA scope: the thread's prior accesses happen before the phase completes).
__device__ __forceinline__ void mbarrier_arrive(uint64_t* bar) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(addr) : "memory");
}

// mapa + mbarrier.arrive.shared::cluster.b64 — a thread; one arrival on the barrier at the same
// shared-memory offset in CTA `cta_rank` of the cluster (itself included). Default CTA-scope
// release: enough to hand back a buffer that was only read, and by the async proxy (wgmma);
// .release.cluster would add a GPU-wide MEMBAR before every arrival.
__device__ __forceinline__ void mbarrier_arrive_cluster(uint64_t* bar, uint32_t cta_rank) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(addr),
      "r"(cta_rank)
      : "memory");
}

// mbarrier.try_wait.parity.shared::cta.b64 — a thread; true once the phase of parity `parity`
// has completed (the hardware waits a bounded time before answering false).
__device__ __forceinline__ bool mbarrier_try_wait_parity(uint64_t* bar, uint32_t parity) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  uint32_t done = 0;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(addr), "r"(parity)
      : "memory");
  return done != 0;
}

// Waits for the phase of parity `parity`. Built with PTX_MBARRIER_TRAP_AFTER=<tries>, a wait that
// never completes prints the barrier and traps (the launch fails) instead of hanging the GPU.
__device__ __forceinline__ void mbarrier_wait_parity(uint64_t* bar, uint32_t parity) {
#ifdef PTX_MBARRIER_TRAP_AFTER
  for (long long tries = 0; !mbarrier_try_wait_parity(bar, parity); ++tries) {
    if (tries == (PTX_MBARRIER_TRAP_AFTER)) {
      printf("mbarrier wait stuck: block %d thread %d barrier smem 0x%x parity %u\n",
             static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x),
             static_cast<unsigned>(__cvta_generic_to_shared(bar)), parity);
      __trap();
    }
  }
#else
  while (!mbarrier_try_wait_parity(bar, parity)) {
  }
#endif
}

}  // namespace ptx
// ptx-end: mbarrier
