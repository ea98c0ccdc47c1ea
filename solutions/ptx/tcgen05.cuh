// tcgen05: Blackwell's fifth-generation tensor core (sm_100a). The accumulator lives in tensor
// memory (TMEM: 128 lanes x 512 columns of 32 bits per SM), allocated by one warp; a single thread
// issues tcgen05.mma from shared-memory descriptors and tcgen05.commit makes an mbarrier track
// their completion; warps read the accumulator back with tcgen05.ld, each warp w its lanes
// 32(w%4) .. 32(w%4)+31.
//
// Single source of truth: solutions embed the block between the markers verbatim and
// tests/solutions checks every copy against this file.
#pragma once
#include <cstdint>

// ptx-begin: tcgen05
namespace ptx {

// tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 — one whole warp; allocates kColumns
// TMEM columns (a power of two, 32..512) and writes their base address to `address_out` (smem).
template <uint32_t kColumns>
__device__ __forceinline__ void tmem_alloc(uint32_t* address_out) {
  static_assert(kColumns >= 32 && kColumns <= 512 && (kColumns & (kColumns - 1)) == 0,
                "TMEM allocations are powers of two from 32 to 512 columns");
  const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(address_out));
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;\n" ::"r"(dst),
               "n"(kColumns)
               : "memory");
}

// tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned — the allocating warp; this CTA will
// allocate no more, so CTAs waiting to allocate on this SM need not wait for it.
__device__ __forceinline__ void tmem_relinquish_alloc_permit() {
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n" ::: "memory");
}

// tcgen05.dealloc.cta_group::1.sync.aligned.b32 — the allocating warp, after every TMEM access
// has finished; frees the columns (a CTA must free all it allocated before it exits).
template <uint32_t kColumns>
__device__ __forceinline__ void tmem_dealloc(uint32_t tmem_address) {
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;\n" ::"r"(tmem_address),
               "n"(kColumns)
               : "memory");
}

// tcgen05.fence::before_thread_sync — a thread; orders its earlier tcgen05 operations before the
// barrier that follows (e.g. tcgen05.ld before the dealloc behind a __syncthreads).
__device__ __forceinline__ void tcgen05_fence_before_thread_sync() {
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
}

// tcgen05.fence::after_thread_sync — a thread; orders its later tcgen05 operations after the
// barrier or mbarrier wait that precedes it (e.g. reading the TMEM address, or the accumulator).
__device__ __forceinline__ void tcgen05_fence_after_thread_sync() {
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
}

// Shared-memory descriptor of a K-major bf16 tile in the 128-byte swizzle layout (TMA's
// CU_TENSOR_MAP_SWIZZLE_128B): 8-row atoms 1024 B apart (stride byte offset), leading byte offset
// unused, bits 46-48 the fixed version 0b001, bits 61-63 layout 2 = 128-byte swizzle (the sm_100
// encoding; wgmma's sm_90 descriptor used bits 62-63 with 1 for the same layout). `tile` must be
// 1024-byte aligned; the k-th 16-element slice is the descriptor plus 2k (32 B >> 4).
__device__ __forceinline__ uint64_t umma_desc_k_major_sw128(const void* tile) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((addr & 0x3FFFF) >> 4);  // bits 0-13: start address >> 4
  desc |= static_cast<uint64_t>(1) << 16;                // bits 16-29: leading byte offset >> 4
  desc |= static_cast<uint64_t>(1024 >> 4) << 32;        // bits 32-45: stride byte offset >> 4
  desc |= static_cast<uint64_t>(1) << 46;                // bits 46-48: version 0b001
  desc |= static_cast<uint64_t>(2) << 61;                // bits 61-63: 2 = 128-byte swizzle
  return desc;
}

// Instruction descriptor of tcgen05.mma kind::f16 for D(fp32) = A(bf16) * B(bf16), both K-major,
// tile kM x kN: bits 4-5 D format (1 = f32), 7-9 A format (1 = bf16), 10-12 B format (1 = bf16),
// 15/16 A/B major (0 = K), 17-22 N >> 3, 24-28 M >> 4.
template <int kM, int kN>
__host__ __device__ constexpr uint32_t umma_instr_desc_bf16_f32() {
  static_assert(kM == 64 || kM == 128, "cta_group::1 takes M = 64 or 128");
  static_assert(kN % (kM == 64 ? 8 : 16) == 0 && kN >= 16 && kN <= 256, "N: 16..256");
  return (1u << 4) | (1u << 7) | (1u << 10) | (static_cast<uint32_t>(kN >> 3) << 17) |
         (static_cast<uint32_t>(kM >> 4) << 24);
}

// tcgen05.mma.cta_group::1.kind::f16 — one thread; D[tmem] (+)= A[smem desc] * B[smem desc]^T,
// asynchronous; `accumulate` false overwrites D. Completion is observed through tcgen05.commit.
__device__ __forceinline__ void umma_bf16(uint32_t d_tmem, uint64_t desc_a, uint64_t desc_b,
                                          uint32_t instr_desc, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %4, 0;\n"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n"
      "}\n" ::"r"(d_tmem),
      "l"(desc_a), "l"(desc_b), "r"(instr_desc), "r"(static_cast<uint32_t>(accumulate))
      : "memory");
}

// tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 — the issuing thread;
// one arrival on `bar` once all its earlier tcgen05.mma have completed (their smem reads too).
__device__ __forceinline__ void umma_commit(uint64_t* bar) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile(
      "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n" ::"r"(addr)
      : "memory");
}

// tcgen05.ld.sync.aligned.32x32b.x32.b32 — warp; lane i receives TMEM lane (address lane + i),
// 32 consecutive 32-bit columns from the address's column. Wait with tmem_wait_ld before use.
__device__ __forceinline__ void tmem_load_32x32b_x32(uint32_t tmem_address, uint32_t (&r)[32]) {
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "
      "%30, %31}, [%32];\n"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
        "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]),
        "=r"(r[14]), "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]),
        "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]),
        "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
      : "r"(tmem_address));
}

// tcgen05.wait::ld.sync.aligned — warp; waits for its earlier tcgen05.ld to land in registers.
__device__ __forceinline__ void tmem_wait_ld() {
  asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
}

}  // namespace ptx
// ptx-end: tcgen05
