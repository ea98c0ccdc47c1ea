// Small Hopper kernels for the device checks of the executed-instruction proof and the sanitizer:
// a TMA + mbarrier + wgmma GEMM (one 64x64 tile of C per CTA, one warpgroup, single-stage) and an
// FFMA GEMM with the same ABI (C[M,N] = A[M,K] * B[N,K]^T, bf16 in, fp32 out).
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>

#include <cstdint>

namespace hopper_tile {

constexpr int kTileM = 64;
constexpr int kTileN = 64;
constexpr int kTileK = 64;     // 64 bf16 = 128 bytes: one 128B-swizzle row
constexpr int kThreads = 128;  // one warpgroup
constexpr uint32_t kStageBytes = (kTileM + kTileN) * kTileK * sizeof(__nv_bfloat16);

__device__ inline uint32_t smem_address(const void* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

// mbarrier.init: one thread, before any arrive; fenced for the async proxy by the caller.
__device__ inline void mbarrier_init(uint64_t* barrier, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_address(barrier)),
               "r"(arrivals));
}
// mbarrier.arrive.expect_tx: one thread; the phase completes once `bytes` have landed.
__device__ inline void mbarrier_arrive_expect_tx(uint64_t* barrier, uint32_t bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(barrier)),
      "r"(bytes)
      : "memory");
}
// mbarrier.try_wait.parity in a loop: every thread that consumes the stage.
__device__ inline void mbarrier_wait(uint64_t* barrier, uint32_t phase) {
  asm volatile(
      "{\n .reg .pred done;\n"
      "wait_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra wait_%=;\n}" ::"r"(smem_address(barrier)),
      "r"(phase)
      : "memory");
}
// cp.async.bulk.tensor.2d: one thread issues a TMA load of a box at (x = inner, y = outer).
__device__ inline void tma_load_2d(void* destination, const CUtensorMap* map, uint64_t* barrier,
                                   int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
      "%3}], [%4];" ::"r"(smem_address(destination)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(smem_address(barrier))
      : "memory");
}

// wgmma shared-memory descriptor of a K-major tile stored with the 128-byte swizzle: 8 rows of
// 128 bytes per swizzle atom, so the stride between atoms is 1024 bytes.
__device__ inline uint64_t wgmma_descriptor(const void* tile) {
  const uint64_t address = smem_address(tile);
  uint64_t descriptor = (address & 0x3FFFF) >> 4;
  descriptor |= uint64_t{1} << 16;          // leading byte offset: unused for swizzled K-major
  descriptor |= uint64_t{1024 >> 4} << 32;  // stride byte offset
  descriptor |= uint64_t{1} << 62;          // 128B swizzle
  return descriptor;
}

__device__ inline void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ inline void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
__device__ inline void wgmma_wait_all() {
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

// wgmma.mma_async m64n64k16 f32 += bf16 * bf16, both operands K-major in shared memory. The whole
// warpgroup issues it; d holds this thread's 32 accumulators.
__device__ inline void wgmma_m64n64k16(float (&d)[32], uint64_t a, uint64_t b, bool accumulate) {
  asm volatile(
      "{\n .reg .pred keep;\n setp.ne.b32 keep, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, keep, 1, 1, 0, 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)));
}

struct SharedTile {
  alignas(1024) __nv_bfloat16 a[kTileM * kTileK];
  alignas(1024) __nv_bfloat16 b[kTileN * kTileK];
  uint64_t full;
};

// The CTA's 64x64 tile of C through TMA + wgmma. Called by all 128 threads.
__device__ inline void tile_tma_wgmma(SharedTile& s, const CUtensorMap* map_a,
                                      const CUtensorMap* map_b, float* c, int n, int k) {
  const int tile_m = blockIdx.y * kTileM;
  const int tile_n = blockIdx.x * kTileN;
  if (threadIdx.x == 0) {
    mbarrier_init(&s.full, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  float d[32] = {};
  for (int kt = 0; kt < k / kTileK; ++kt) {
    if (threadIdx.x == 0) {
      mbarrier_arrive_expect_tx(&s.full, kStageBytes);
      tma_load_2d(s.a, map_a, &s.full, kt * kTileK, tile_m);
      tma_load_2d(s.b, map_b, &s.full, kt * kTileK, tile_n);
    }
    mbarrier_wait(&s.full, kt & 1);
    wgmma_fence();
    for (int kk = 0; kk < kTileK / 16; ++kk) {
      wgmma_m64n64k16(d, wgmma_descriptor(s.a + kk * 16), wgmma_descriptor(s.b + kk * 16),
                      kt > 0 || kk > 0);
    }
    wgmma_commit();
    wgmma_wait_all();
    __syncthreads();  // the next TMA overwrites the stage
  }
  // Accumulator layout of m64nNk16: warp w owns rows 16w..16w+15; per 8-column group a thread
  // holds (row l/4, cols 2(l%4)+{0,1}) and the same 8 rows below.
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  for (int j = 0; j < 32; ++j) {
    const int row = tile_m + warp * 16 + lane / 4 + 8 * ((j / 2) % 2);
    const int col = tile_n + (j / 4) * 8 + (lane % 4) * 2 + (j % 2);
    c[static_cast<int64_t>(row) * n + col] = d[j];
  }
}

// One C element per thread, K-loop of FFMAs.
__device__ inline void element_ffma(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m,
                                    int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0.f;
  for (int i = 0; i < k; ++i) {
    sum = fmaf(__bfloat162float(a[static_cast<int64_t>(row) * k + i]),
               __bfloat162float(b[static_cast<int64_t>(col) * k + i]), sum);
  }
  c[static_cast<int64_t>(row) * n + col] = sum;
}

}  // namespace hopper_tile
