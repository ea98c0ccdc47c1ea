// High-precision GEMM reference on the GPU (the trusted side): C[m, n] = Σ_k A[m, k]·B[n, k]
// for bf16 A [M, K] and B [N, K] row-major (C = A·Bᵀ, the tasks' layout). Products of two
// bf16 values are exact in fp32; they are summed in fp64, so C — stored as fp32, never rounded
// to bf16 — is the exact result rounded once. Stream-ordered.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace ptxbench::eval::correctness::gpu {

void gemm_reference(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, std::int64_t m,
                    std::int64_t n, std::int64_t k, cudaStream_t stream);

// The FP8 form: e4m3 A, B (products of two e4m3 values are exact in fp32 too), summed in fp64,
// times the per-tensor scales *scale_a · *scale_b (device scalars) in fp64, rounded once to fp32.
void gemm_fp8_reference(const __nv_fp8_e4m3* a, const __nv_fp8_e4m3* b, const float* scale_a,
                        const float* scale_b, float* c, std::int64_t m, std::int64_t n,
                        std::int64_t k, cudaStream_t stream);

}  // namespace ptxbench::eval::correctness::gpu
