// tma_reduce: TMA's reducing store (sm_90) — the copy engine adds a shared-memory box into global
// memory element by element (here fp32 add), atomically with respect to other reductions: many
// CTAs can accumulate partial sums into one buffer without per-thread atomics. Tracked by the
// issuing thread's bulk groups like a TMA store; out-of-bounds elements are dropped.
//
// Single source of truth: solutions embed the block between the markers verbatim and
// tests/solutions checks every copy against this file.
#pragma once
#include <cuda.h>

#include <cstdint>

// ptx-begin: tma_reduce
namespace ptx {

// cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group — one thread; adds the
// box at `src` into the tensor at coordinates (x: inner, y: outer). The box must be written and
// fenced to the async proxy first, and must not be overwritten before
// cp.async.bulk.wait_group.read says the group has read it.
__device__ __forceinline__ void tma_reduce_add_2d(const CUtensorMap* map, const void* src,
                                                  int32_t x, int32_t y) {
  const uint32_t src_addr = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile(
      "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3}], "
      "[%1];\n" ::"l"(reinterpret_cast<uint64_t>(map)),
      "r"(src_addr), "r"(x), "r"(y)
      : "memory");
}

}  // namespace ptx
// ptx-end: tma_reduce
