// Planted memory and shared-memory-race defects for capturing compute-sanitizer's real output
// (the parser's test data in tests/eval/sanitize/data/sanitizer/) and for checking that a correct
// TMA + mbarrier + wgmma kernel gives no false report.
//
//   sanitizer_plants <clean|oob_write|oob_read|shared_race|tma_wgmma>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hopper_tile.cuh"

namespace {

constexpr int kM = 128, kN = 128, kK = 256;

__global__ void gemm_ffma(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n,
                          int k) {
  hopper_tile::element_ffma(a, b, c, m, n, k);
}

// Writes one row past the end of C.
__global__ void gemm_ffma_oob_write(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m,
                                    int n, int k) {
  hopper_tile::element_ffma(a, b, c, m, n, k);
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row == m - 1) c[static_cast<int64_t>(m) * n + col] = 1.f;
}

// Reads 64 elements past the end of A on the last row: that lands in B, the next allocation,
// and memcheck without --padding does not report it (seen on an H200).
__global__ void gemm_ffma_oob_read(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m,
                                   int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0.f;
  for (int i = 0; i <= k + 64; ++i) {  // 64 elements too far
    const float x = __bfloat162float(a[static_cast<int64_t>(row) * k + i]);
    sum = i < k ? fmaf(x, __bfloat162float(b[static_cast<int64_t>(col) * k + i]), sum)
                : sum + 0.f * x;
  }
  c[static_cast<int64_t>(row) * n + col] = sum;
}

// Each warp stages partial sums in shared memory and reads another warp's slot without a barrier.
__global__ void gemm_ffma_shared_race(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c,
                                      int m, int n, int k) {
  __shared__ float partial[256];
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.f;
  for (int i = 0; i < k; ++i) {
    sum = fmaf(__bfloat162float(a[static_cast<int64_t>(row) * k + i]),
               __bfloat162float(b[static_cast<int64_t>(col) * k + i]), sum);
  }
  partial[t] = sum;
  // missing __syncthreads(): reads the slot another warp writes
  const float other = partial[(t + 32) % 256];
  c[static_cast<int64_t>(row) * n + col] = sum + 0.f * other;
}

__global__ void __launch_bounds__(128)
    gemm_tma_wgmma(const __grid_constant__ CUtensorMap map_a,
                   const __grid_constant__ CUtensorMap map_b, float* c, int n, int k) {
  __shared__ hopper_tile::SharedTile s;
  hopper_tile::tile_tma_wgmma(s, &map_a, &map_b, c, n, k);
}

CUtensorMap make_map(const __nv_bfloat16* base, int rows, int cols) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * sizeof(__nv_bfloat16)};
  const cuuint32_t box[2] = {hopper_tile::kTileK, 64};
  const cuuint32_t element_strides[2] = {1, 1};
  if (cuTensorMapEncodeTiled(
          &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<__nv_bfloat16*>(base), dims,
          strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
          CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed\n");
    std::exit(2);
  }
  return map;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "clean";
  std::vector<__nv_bfloat16> host(static_cast<size_t>(kM) * kK, __float2bfloat16(0.5f));
  __nv_bfloat16 *a = nullptr, *b = nullptr;
  float* c = nullptr;
  cudaMalloc(&a, sizeof(__nv_bfloat16) * kM * kK);
  cudaMalloc(&b, sizeof(__nv_bfloat16) * kN * kK);
  cudaMalloc(&c, sizeof(float) * kM * kN);
  cudaMemcpy(a, host.data(), sizeof(__nv_bfloat16) * kM * kK, cudaMemcpyHostToDevice);
  cudaMemcpy(b, host.data(), sizeof(__nv_bfloat16) * kN * kK, cudaMemcpyHostToDevice);
  const dim3 grid(kN / 16, kM / 16), block(16, 16);
  if (mode == "clean") {
    gemm_ffma<<<grid, block>>>(a, b, c, kM, kN, kK);
  } else if (mode == "oob_write") {
    gemm_ffma_oob_write<<<grid, block>>>(a, b, c, kM, kN, kK);
  } else if (mode == "oob_read") {
    gemm_ffma_oob_read<<<grid, block>>>(a, b, c, kM, kN, kK);
  } else if (mode == "shared_race") {
    gemm_ffma_shared_race<<<grid, block>>>(a, b, c, kM, kN, kK);
  } else if (mode == "tma_wgmma") {
    gemm_tma_wgmma<<<dim3(kN / 64, kM / 64), 128>>>(make_map(a, kM, kK), make_map(b, kN, kK), c, kN,
                                                    kK);
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  const cudaError_t error = cudaDeviceSynchronize();
  std::vector<float> out(static_cast<size_t>(kM) * kN);
  cudaMemcpy(out.data(), c, sizeof(float) * out.size(), cudaMemcpyDeviceToHost);
  std::printf("mode %s: %s, c[0]=%g (expect %g)\n", mode.c_str(), cudaGetErrorString(error), out[0],
              0.25 * kK);
  return error == cudaSuccess ? 0 : 1;
}
