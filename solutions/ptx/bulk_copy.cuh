// bulk_copy: the non-tensor bulk copy (sm_90) — a contiguous run of bytes from global to shared
// memory through the TMA engine, completing on an mbarrier like a tensor copy; no tensor map.
// Size and both addresses must be multiples of 16 bytes.
//
// Single source of truth: solutions embed the block between the markers verbatim and
// tests/solutions checks every copy against this file.
#pragma once
#include <cstdint>

// ptx-begin: bulk_copy
namespace ptx {

// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes — one thread; copies `bytes`
// from `src` to `dst`, completing them on `bar` (count them in the expect_tx of its phase).
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes,
                                          uint64_t* bar) {
  const uint32_t dst_addr = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::
          "r"(dst_addr),
      "l"(reinterpret_cast<uint64_t>(src)), "r"(bytes), "r"(bar_addr)
      : "memory");
}

}  // namespace ptx
// ptx-end: bulk_copy
