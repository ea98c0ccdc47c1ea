// stmatrix: a warp stores 8x8 tiles of 16-bit elements from registers to shared memory, in the
// same per-lane layout as mma/wgmma accumulator fragments (sm_90).
//
// Single source of truth: solutions embed the block between the markers verbatim and
// tests/solutions checks every copy against this file.
#pragma once
#include <cstdint>

// ptx-begin: stmatrix
namespace ptx {

// stmatrix.sync.aligned.m8n8.x4.shared.b16 — warp; lanes 8i..8i+7 give the 16-byte row
// addresses of matrix i; register r_i of lane l holds matrix i's row l/4, columns 2(l%4), +1.
__device__ __forceinline__ void stmatrix_x4(void* row, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(row));
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// cvt.rn.bf16x2.f32 — a thread; packs two floats, `lo` in the low half (the lower address).
__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  uint32_t packed;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}

}  // namespace ptx
// ptx-end: stmatrix
