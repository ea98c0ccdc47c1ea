// wgmma_transposed: the wgmma forms an attention backward pass needs beyond the GEMM's (sm_90a).
// Operands whose N (or M) dimension is the contiguous one in shared memory — a row-major
// [keys, d] tile read as B[K = keys, N = d] — are MN-major: the transpose bit of the instruction
// is set and the descriptor describes 64-element panels along N. A register A operand (RS form)
// takes a tile the warpgroup just computed, converted to bf16 in its accumulator layout.
//
// Single source of truth: solutions embed the block between the markers verbatim and
// tests/solutions checks every copy against this file.
#pragma once
#include <cstdint>

// ptx-begin: wgmma_transposed
namespace ptx {

// Matrix descriptor of an MN-major bf16 operand in the 128-byte swizzle layout that TMA writes
// for a row-major tile whose rows run along K: each row holds 64 consecutive N elements (128 B,
// chunks XOR-swizzled by row mod 8), 8 rows make a 1024-byte atom. Stride byte offset: 1024, the
// distance between atoms along K; leading byte offset: `panel_bytes`, the distance between the
// 64-element panels along N (unused when N <= 64). `tile` must be 1024-byte aligned; the k-th
// 16-row slice is the descriptor plus k * 2048 >> 4 = 128k.
__device__ __forceinline__ uint64_t wgmma_desc_mn_major_sw128(const void* tile,
                                                              uint32_t panel_bytes) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((addr & 0x3FFFF) >> 4);  // bits 0-13: start address >> 4
  desc |= static_cast<uint64_t>((panel_bytes >> 4) & 0x3FFF) << 16;  // bits 16-29: LBO >> 4
  desc |= static_cast<uint64_t>(1024 >> 4) << 32;                    // bits 32-45: SBO >> 4
  desc |= static_cast<uint64_t>(1) << 62;                            // bits 62-63: 128-byte swizzle
  return desc;
}

// wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 with both operands from shared memory
// and B's transpose bit as a template argument — warpgroup; D[64x64] (+)= A[64x16] * B, A K-major
// (descriptor), B K-major ([64x16], kTransB = 0) or MN-major ([16x64], kTransB = 1: its N
// elements contiguous, wgmma_desc_mn_major_sw128). Accumulator layout as m64n256k16.
template <int kTransB>
__device__ __forceinline__ void wgmma_m64n64k16_bf16_ss(float (&d)[32], uint64_t desc_a,
                                                        uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "
      "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, %35;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<uint32_t>(accumulate)), "n"(kTransB));
}

// wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 with A from registers and B MN-major —
// warpgroup; D[64x64] (+)= A[64x16] * B[16x64], B's N elements contiguous in shared memory
// (wgmma_desc_mn_major_sw128; imm-trans-b = 1). `a` is the A fragment: thread t holds rows
// g = 16(t/32) + (t%32)/4 and g + 8, columns 2(t%4) (+1) and 8 + 2(t%4) (+1), packed bf16x2 as
// a[0] = (g, 2(t%4)), a[1] = (g+8, 2(t%4)), a[2] = (g, 8+2(t%4)), a[3] = (g+8, 8+2(t%4)): the
// accumulator layout of a previous wgmma, so a tile computed in registers feeds the next one.
__device__ __forceinline__ void wgmma_m64n64k16_bf16_rs_mn_major_b(float (&d)[32],
                                                                   const uint32_t (&a)[4],
                                                                   uint64_t desc_b,
                                                                   bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "
      "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "{%32, %33, %34, %35}, %36, p, 1, 1, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b),
        "r"(static_cast<uint32_t>(accumulate)));
}

// wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 with A from registers and B MN-major —
// warpgroup; D[64x128] (+)= A[64x16] * B[16x128], B's N elements contiguous in shared memory
// (wgmma_desc_mn_major_sw128; imm-trans-b = 1). `a` is the A fragment: thread t holds rows
// g = 16(t/32) + (t%32)/4 and g + 8, columns 2(t%4) (+1) and 8 + 2(t%4) (+1), packed bf16x2 as
// a[0] = (g, 2(t%4)), a[1] = (g+8, 2(t%4)), a[2] = (g, 8+2(t%4)), a[3] = (g+8, 8+2(t%4)): the
// accumulator layout of a previous wgmma, so a tile computed in registers feeds the next one.
__device__ __forceinline__ void wgmma_m64n128k16_bf16_rs_mn_major_b(float (&d)[64],
                                                                    const uint32_t (&a)[4],
                                                                    uint64_t desc_b,
                                                                    bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "
      "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "
      "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "
      "%56, %57, %58, %59, %60, %61, %62, %63}, "
      "{%64, %65, %66, %67}, %68, p, 1, 1, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b),
        "r"(static_cast<uint32_t>(accumulate)));
}

}  // namespace ptx
// ptx-end: wgmma_transposed
