// mma_sync: the pre-Hopper tensor-core path (sm_80+): cp.async global->shared copies, ldmatrix
// fragment loads and warp-synchronous mma.sync. It runs on Hopper, at a fraction of wgmma's rate,
// and shows as HMMA (not HGMMA) in SASS.
//
// Single source of truth: solutions embed the block between the markers verbatim and
// tests/solutions checks every copy against this file.
#pragma once
#include <cstdint>

// ptx-begin: mma_sync
namespace ptx {

// cp.async.cg.shared.global [dst], [src], 16, src_bytes — a thread; copies 16 bytes (zero-filling
// the bytes past src_bytes, so src_bytes = 0 reads nothing and writes zeros) without registers.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, uint32_t src_bytes) {
  const uint32_t dst_addr = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst_addr), "l"(src),
               "r"(src_bytes)
               : "memory");
}

// cp.async.commit_group — a thread; closes the group of its cp.async issued since the last.
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// cp.async.wait_group N — a thread; waits until at most N of its groups are pending (then a
// barrier makes every thread's copies visible to the CTA).
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// ldmatrix.sync.aligned.m8n8.x4.shared.b16 — warp; lanes 8i..8i+7 give the row addresses of
// matrix i; r_i of lane l receives matrix i's row l/4, columns 2(l%4), +1.
__device__ __forceinline__ void ldmatrix_x4(const void* row, uint32_t& r0, uint32_t& r1,
                                            uint32_t& r2, uint32_t& r3) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}

// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 — warp; D[16x8] += A[16x16] · B[16x8]
// (A row-major fragments a0..a3, B column-major fragments b0, b1, fp32 accumulators d0..d3:
// d0, d1 at row l/4, columns 2(l%4), +1; d2, d3 at row l/4 + 8).
__device__ __forceinline__ void mma_m16n8k16_bf16(float (&d)[4], uint32_t a0, uint32_t a1,
                                                  uint32_t a2, uint32_t a3, uint32_t b0,
                                                  uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

}  // namespace ptx
// ptx-end: mma_sync
