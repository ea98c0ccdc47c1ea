// PTX wrappers: the FP8 form of Blackwell's tensor-core MMA (tcgen05.mma kind::f8f6f4, SASS
// UTCQMMA). Allocation, commit, tcgen05.ld and the shared-memory descriptor are those of
// tcgen05.cuh: a 128-byte swizzled K-major tile of e4m3 has rows of 128 elements, and one k32
// step is 32 bytes (descriptor + 2), as bf16's k16.
#pragma once
#include <cstdint>

// ptx-begin: tcgen05_fp8
namespace ptx {

// Instruction descriptor of tcgen05.mma kind::f8f6f4 for D(fp32) = A(e4m3) * B(e4m3), both
// K-major, tile kM x kN: bits 4-5 D format (1 = f32), 7-9 A format (0 = e4m3), 10-12 B format
// (0 = e4m3), 15/16 A/B major (0 = K), 17-22 N >> 3, 24-28 M >> 4.
template <int kM, int kN>
__host__ __device__ constexpr uint32_t umma_instr_desc_e4m3_f32() {
  static_assert(kM == 64 || kM == 128, "cta_group::1 takes M = 64 or 128");
  static_assert(kN % (kM == 64 ? 8 : 16) == 0 && kN >= 16 && kN <= 256, "N: 16..256");
  return (1u << 4) | (0u << 7) | (0u << 10) | (static_cast<uint32_t>(kN >> 3) << 17) |
         (static_cast<uint32_t>(kM >> 4) << 24);
}

// tcgen05.mma.cta_group::1.kind::f8f6f4 — one thread; D[tmem] (+)= A[smem desc] * B[smem desc]^T
// with FP8 operands, K = 32 per instruction, asynchronous; `accumulate` false overwrites D. The
// accumulator in tensor memory is fp32 (no promotion as on Hopper). Completion through
// tcgen05.commit.
__device__ __forceinline__ void umma_e4m3(uint32_t d_tmem, uint64_t desc_a, uint64_t desc_b,
                                          uint32_t instr_desc, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %4, 0;\n"
      "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, p;\n"
      "}\n" ::"r"(d_tmem),
      "l"(desc_a), "l"(desc_b), "r"(instr_desc), "r"(static_cast<uint32_t>(accumulate))
      : "memory");
}

}  // namespace ptx
// ptx-end: tcgen05_fp8
