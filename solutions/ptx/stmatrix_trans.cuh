// stmatrix_trans: stmatrix with .trans — a warp stores 8x8 tiles of 16-bit elements transposed
// (sm_90): the accumulator fragment of C lands in shared memory as Cᵀ, which is how a tile a
// warpgroup computed with rows = keys becomes an operand with rows = queries.
//
// Single source of truth: solutions embed the block between the markers verbatim and
// tests/solutions checks every copy against this file.
#pragma once
#include <cstdint>

// ptx-begin: stmatrix_trans
namespace ptx {

// stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 — warp; register r_i of lane l holds matrix i's
// row l/4, columns 2(l%4), +1 (the accumulator layout); lanes 8i..8i+7 give the 16-byte
// addresses of matrix i's columns 0..7, each receiving that column's 8 elements: the stored
// rows are the columns of the fragment.
__device__ __forceinline__ void stmatrix_x4_trans(void* row, uint32_t r0, uint32_t r1, uint32_t r2,
                                                  uint32_t r3) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(row));
  asm volatile(
      "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
      "r"(r0), "r"(r1), "r"(r2), "r"(r3)
      : "memory");
}

}  // namespace ptx
// ptx-end: stmatrix_trans
