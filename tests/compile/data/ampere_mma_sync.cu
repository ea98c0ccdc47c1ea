// Test candidate (Ampere-style code compiled for sm_90a): C[M,N] = A[M,K] * B[N,K]^T in bf16
// with fp32 accumulation using warp-level mma.sync m16n8k16 straight from registers. One warp
// per 16x8 tile of C, no shared memory, no TMA, no mbarrier: its SASS must show HMMA but none of
// the Hopper families ptxbench tracks. Requires M % 16 == 0, N % 8 == 0, K % 16 == 0.
#include <cuda_bf16.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>

namespace {
// Two consecutive bf16 of a row, as one 32-bit mma.sync operand register.
__device__ uint32_t load_pair(const __nv_bfloat16* row, int col) {
  return *reinterpret_cast<const uint32_t*>(row + col);
}

__global__ void gemm_mma_sync(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c,
                              int m, int n, int k) {
  const int warps_per_row = n / 8;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (warp >= (m / 16) * warps_per_row) return;
  const int lane = threadIdx.x % 32;
  const int tile_m = (warp / warps_per_row) * 16;
  const int tile_n = (warp % warps_per_row) * 8;
  const int group = lane / 4;        // row within the 8-row half
  const int pair = (lane % 4) * 2;   // column pair within the 8 columns

  float d[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k0 = 0; k0 < k; k0 += 16) {
    const __nv_bfloat16* a_lo = a + int64_t(tile_m + group) * k + k0;
    const __nv_bfloat16* a_hi = a + int64_t(tile_m + group + 8) * k + k0;
    const __nv_bfloat16* b_row = b + int64_t(tile_n + group) * k + k0;
    const uint32_t a0 = load_pair(a_lo, pair), a1 = load_pair(a_hi, pair);
    const uint32_t a2 = load_pair(a_lo, pair + 8), a3 = load_pair(a_hi, pair + 8);
    const uint32_t b0 = load_pair(b_row, pair), b1 = load_pair(b_row, pair + 8);
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
  __nv_bfloat16* c_lo = c + int64_t(tile_m + group) * n + tile_n + pair;
  __nv_bfloat16* c_hi = c + int64_t(tile_m + group + 8) * n + tile_n + pair;
  c_lo[0] = __float2bfloat16(d[0]);
  c_lo[1] = __float2bfloat16(d[1]);
  c_hi[0] = __float2bfloat16(d[2]);
  c_hi[1] = __float2bfloat16(d[3]);
}
}  // namespace

void run(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView c) {
  const int64_t m = a.size(0), k = a.size(1), n = b.size(0);
  TVM_FFI_ICHECK(m % 16 == 0 && n % 8 == 0 && k % 16 == 0) << "unsupported shape";
  const int64_t warps = (m / 16) * (n / 8);
  const int threads = 256;
  const int64_t blocks = (warps * 32 + threads - 1) / threads;
  auto stream = static_cast<cudaStream_t>(
      TVMFFIEnvGetStream(a.device().device_type, a.device().device_id));
  gemm_mma_sync<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      static_cast<const __nv_bfloat16*>(a.data_ptr()),
      static_cast<const __nv_bfloat16*>(b.data_ptr()), static_cast<__nv_bfloat16*>(c.data_ptr()),
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k));
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
