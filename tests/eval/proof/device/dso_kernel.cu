// A kernel in a shared object built with the shared CUDA runtime, loaded with dlopen after the
// SASS-metrics session exists: the situation of a candidate in the probe.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "hopper_tile.cuh"

__global__ void dso_ffma(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n,
                         int k) {
  hopper_tile::element_ffma(a, b, c, m, n, k);
}

extern "C" int dso_launch(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n,
                          int k) {
  dso_ffma<<<dim3(n / 16, m / 16), dim3(16, 16)>>>(a, b, c, m, n, k);
  return static_cast<int>(cudaGetLastError());
}
