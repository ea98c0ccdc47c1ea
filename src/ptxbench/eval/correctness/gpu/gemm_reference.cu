#include "ptxbench/eval/correctness/gpu/gemm_reference.hpp"

#include "ptxbench/eval/worker/gpu/cuda_check.hpp"
#include "ptxbench/util/check.hpp"

namespace ptxbench::eval::correctness::gpu {
namespace {

// A block computes a 64×64 tile of C with 256 threads, each a 4×4 micro-tile at rows
// ty + 16·a, columns tx + 16·b; K advances 32 at a time through padded shared tiles.
constexpr int kTile = 64;
constexpr int kDepth = 32;
constexpr int kSide = 16;
constexpr int kMicro = kTile / kSide;
constexpr int kStride = kDepth + 1;  // odd: the 16 rows a half-warp reads are in distinct banks

__device__ inline float to_float(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
__device__ inline float to_float(__nv_fp8_e4m3 x) {
  return static_cast<float>(x);
}

template <class In>
__device__ void load_tile(float* tile, const In* matrix, std::int64_t row0, std::int64_t rows,
                          std::int64_t k0, std::int64_t depth) {
  for (int index = threadIdx.x; index < kTile * kDepth; index += kSide * kSide) {
    int r = index / kDepth, c = index % kDepth;
    std::int64_t row = row0 + r, col = k0 + c;
    tile[r * kStride + c] = row < rows && col < depth ? to_float(matrix[row * depth + col]) : 0.0f;
  }
}

// `scale_a`, `scale_b`: device scalars multiplied into the fp64 sum, or null for none.
template <class In>
__global__ void __launch_bounds__(kSide* kSide)
    gemm_kernel(const In* a, const In* b, const float* scale_a, const float* scale_b, float* c,
                std::int64_t m, std::int64_t n, std::int64_t k) {
  __shared__ float a_tile[kTile * kStride];
  __shared__ float b_tile[kTile * kStride];
  const int ty = static_cast<int>(threadIdx.x) / kSide, tx = static_cast<int>(threadIdx.x) % kSide;
  const std::int64_t m0 = std::int64_t{blockIdx.y} * kTile, n0 = std::int64_t{blockIdx.x} * kTile;
  double acc[kMicro][kMicro] = {};
  for (std::int64_t k0 = 0; k0 < k; k0 += kDepth) {
    __syncthreads();
    load_tile(a_tile, a, m0, m, k0, k);
    load_tile(b_tile, b, n0, n, k0, k);
    __syncthreads();
#pragma unroll 4
    for (int kk = 0; kk < kDepth; ++kk) {
      double av[kMicro], bv[kMicro];
#pragma unroll
      for (int i = 0; i < kMicro; ++i) av[i] = a_tile[(ty + kSide * i) * kStride + kk];
#pragma unroll
      for (int j = 0; j < kMicro; ++j) bv[j] = b_tile[(tx + kSide * j) * kStride + kk];
#pragma unroll
      for (int i = 0; i < kMicro; ++i)
#pragma unroll
        for (int j = 0; j < kMicro; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
    }
  }
  const double scale = (scale_a != nullptr ? static_cast<double>(*scale_a) : 1.0) *
                       (scale_b != nullptr ? static_cast<double>(*scale_b) : 1.0);
#pragma unroll
  for (int i = 0; i < kMicro; ++i) {
#pragma unroll
    for (int j = 0; j < kMicro; ++j) {
      std::int64_t row = m0 + ty + kSide * i, col = n0 + tx + kSide * j;
      if (row < m && col < n) c[row * n + col] = static_cast<float>(scale * acc[i][j]);
    }
  }
}

template <class In>
void launch_gemm(const In* a, const In* b, const float* scale_a, const float* scale_b, float* c,
                 std::int64_t m, std::int64_t n, std::int64_t k, cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  PTXBENCH_CHECK((m + kTile - 1) / kTile <= 65535, "M too large for the grid's y dimension");
  dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile),
            static_cast<unsigned>((m + kTile - 1) / kTile));
  gemm_kernel<In><<<grid, kSide * kSide, 0, stream>>>(a, b, scale_a, scale_b, c, m, n, k);
  PTXBENCH_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void gemm_reference(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, std::int64_t m,
                    std::int64_t n, std::int64_t k, cudaStream_t stream) {
  launch_gemm(a, b, nullptr, nullptr, c, m, n, k, stream);
}

void gemm_fp8_reference(const __nv_fp8_e4m3* a, const __nv_fp8_e4m3* b, const float* scale_a,
                        const float* scale_b, float* c, std::int64_t m, std::int64_t n,
                        std::int64_t k, cudaStream_t stream) {
  launch_gemm(a, b, scale_a, scale_b, c, m, n, k, stream);
}

}  // namespace ptxbench::eval::correctness::gpu
