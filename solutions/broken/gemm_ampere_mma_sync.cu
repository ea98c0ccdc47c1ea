// ptxbench: task=gemm_n7168_k5120 arch=hopper expect=INSTRUCTIONS_NOT_EXECUTED
//
// Negative control: a correct, reasonably tuned Ampere-style GEMM (cp.async 3-stage ring,
// ldmatrix, mma.sync m16n8k16) compiled for sm_90a. It computes the right C for every M, so it
// passes sanitize and correctness, but its SASS has HMMA and LDGSTS only: no Hopper family
// (GMMA, TMA) exists statically or executes dynamically. Caught by: dynamic SASS, verdict
// INSTRUCTIONS_NOT_EXECUTED — the benchmark asks for Hopper instructions, not for any tensor-core
// GEMM. The mistake it models: porting an sm_80 kernel and calling it a Hopper kernel.
//
// Tile 128x128x32, 8 warps in a 2x4 grid, each warp 64x32 (4x4 mma tiles, 64 accumulators).
// Shared-memory rows are padded from 64 to 80 bytes so that ldmatrix's eight row addresses fall
// in eight different bank quads.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

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

namespace gemm {

using bf16 = __nv_bfloat16;

struct Config {
  static constexpr int kBlockM = 128;
  static constexpr int kBlockN = 128;
  static constexpr int kBlockK = 32;
  static constexpr int kStages = 3;
  static constexpr int kThreads = 256;
  static constexpr int kWarpRows = 64;               // 2 warps along M
  static constexpr int kWarpCols = 32;               // 4 warps along N
  static constexpr int kRowElements = kBlockK + 8;   // padded shared-memory row
  static constexpr int kChunksPerRow = kBlockK / 8;  // 16-byte cp.async chunks
  static_assert((kBlockM * kChunksPerRow) % kThreads == 0, "whole copy rounds");
  static_assert((kRowElements * sizeof(bf16)) % 16 == 0, "cp.async needs 16-byte aligned rows");
};

struct SharedStorage {
  bf16 a[Config::kStages][Config::kBlockM * Config::kRowElements];
  bf16 b[Config::kStages][Config::kBlockN * Config::kRowElements];
};

// Copies the k-block `k_block` of A's and B's tile rows into one stage; rows past M or N and
// columns past K arrive as zeros (cp.async with 0 source bytes).
__device__ __forceinline__ void load_stage(SharedStorage& smem, int stage, int k_block,
                                           const bf16* a, const bf16* b, int m, int n, int k,
                                           int m0, int n0) {
  constexpr int kRounds = Config::kBlockM * Config::kChunksPerRow / Config::kThreads;
#pragma unroll
  for (int round = 0; round < kRounds; ++round) {
    const int chunk = static_cast<int>(threadIdx.x) + round * Config::kThreads;
    const int row = chunk / Config::kChunksPerRow;
    const int col = (chunk % Config::kChunksPerRow) * 8;
    const int gk = k_block * Config::kBlockK + col;
    const bool a_in = m0 + row < m && gk < k;
    const bool b_in = n0 + row < n && gk < k;
    ptx::cp_async_16(&smem.a[stage][row * Config::kRowElements + col],
                     a_in ? a + static_cast<int64_t>(m0 + row) * k + gk : a, a_in ? 16 : 0);
    ptx::cp_async_16(&smem.b[stage][row * Config::kRowElements + col],
                     b_in ? b + static_cast<int64_t>(n0 + row) * k + gk : b, b_in ? 16 : 0);
  }
}

__global__ void __launch_bounds__(Config::kThreads)
    gemm_bf16_nt_mma_sync_kernel(const bf16* a, const bf16* b, bf16* c, int m, int n, int k) {
  extern __shared__ __align__(16) uint8_t shared_raw[];
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(shared_raw);
  const int m0 = static_cast<int>(blockIdx.y) * Config::kBlockM;
  const int n0 = static_cast<int>(blockIdx.x) * Config::kBlockN;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp_row = (warp / 4) * Config::kWarpRows;
  const int warp_col = (warp % 4) * Config::kWarpCols;
  const int num_k_blocks = (k + Config::kBlockK - 1) / Config::kBlockK;

  float acc[4][4][4] = {};
  // Prologue: stages 0 .. kStages-2 in flight; one commit per stage keeps the group count exact.
  for (int s = 0; s < Config::kStages - 1; ++s) {
    if (s < num_k_blocks) load_stage(smem, s, s, a, b, m, n, k, m0, n0);
    ptx::cp_async_commit();
  }
  for (int k_block = 0; k_block < num_k_blocks; ++k_block) {
    ptx::cp_async_wait<Config::kStages - 2>();  // this k-block's copies are done ...
    __syncthreads();  // ... for every thread, and everyone is past the previous k-block
    const int next = k_block + Config::kStages - 1;
    if (next < num_k_blocks) load_stage(smem, next % Config::kStages, next, a, b, m, n, k, m0, n0);
    ptx::cp_async_commit();

    const bf16* tile_a = smem.a[k_block % Config::kStages];
    const bf16* tile_b = smem.b[k_block % Config::kStages];
#pragma unroll
    for (int kk = 0; kk < Config::kBlockK; kk += 16) {
      uint32_t frag_a[4][4], frag_b[4][2];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        const int row = warp_row + mi * 16 + lane % 8 + 8 * ((lane / 8) % 2);
        ptx::ldmatrix_x4(&tile_a[row * Config::kRowElements + kk + 8 * (lane / 16)], frag_a[mi][0],
                         frag_a[mi][1], frag_a[mi][2], frag_a[mi][3]);
      }
#pragma unroll
      for (int pair = 0; pair < 2; ++pair) {
        const int row = warp_col + pair * 16 + lane % 8 + 8 * (lane / 16);
        ptx::ldmatrix_x4(&tile_b[row * Config::kRowElements + kk + 8 * ((lane / 8) % 2)],
                         frag_b[2 * pair][0], frag_b[2 * pair][1], frag_b[2 * pair + 1][0],
                         frag_b[2 * pair + 1][1]);
      }
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
#pragma unroll
        for (int nj = 0; nj < 4; ++nj) {
          ptx::mma_m16n8k16_bf16(acc[mi][nj], frag_a[mi][0], frag_a[mi][1], frag_a[mi][2],
                                 frag_a[mi][3], frag_b[nj][0], frag_b[nj][1]);
        }
      }
    }
  }

#pragma unroll
  for (int mi = 0; mi < 4; ++mi) {
#pragma unroll
    for (int nj = 0; nj < 4; ++nj) {
      const int col = n0 + warp_col + nj * 8 + 2 * (lane % 4);
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = m0 + warp_row + mi * 16 + lane / 4 + 8 * half;
        if (row < m && col < n) {
          *reinterpret_cast<__nv_bfloat162*>(&c[static_cast<int64_t>(row) * n + col]) =
              __floats2bfloat162_rn(acc[mi][nj][2 * half], acc[mi][nj][2 * half + 1]);
        }
      }
    }
  }
}

void check_matrix(const tvm::ffi::TensorView& t, const char* name) {
  const DLDataType dtype = t.dtype();
  if (t.ndim() != 2 || dtype.code != kDLBfloat || dtype.bits != 16 || !t.IsContiguous() ||
      t.size(1) % 8 != 0) {
    TVM_FFI_THROW(ValueError) << name << " must be a contiguous 2-D bf16 tensor, rows of 8k";
  }
}

}  // namespace gemm

void run(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView c) {
  using gemm::Config;
  gemm::check_matrix(a, "A");
  gemm::check_matrix(b, "B");
  gemm::check_matrix(c, "C");
  const int m = static_cast<int>(a.size(0)), k = static_cast<int>(a.size(1));
  const int n = static_cast<int>(b.size(0));
  if (m == 0 || n == 0) return;
  const int device_id = a.device().device_id;
  const auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, device_id));
  const int shared_bytes = sizeof(gemm::SharedStorage);
  cudaFuncSetAttribute(gemm::gemm_bf16_nt_mma_sync_kernel,
                       cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
  const dim3 grid((n + Config::kBlockN - 1) / Config::kBlockN,
                  (m + Config::kBlockM - 1) / Config::kBlockM);
  gemm::gemm_bf16_nt_mma_sync_kernel<<<grid, Config::kThreads, shared_bytes, stream>>>(
      static_cast<const gemm::bf16*>(a.data_ptr()), static_cast<const gemm::bf16*>(b.data_ptr()),
      static_cast<gemm::bf16*>(c.data_ptr()), m, n, k);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) TVM_FFI_THROW(RuntimeError) << cudaGetErrorString(status);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
