// The GEMM baselines: C[M, N] = A[M, K] · B[N, K]ᵀ in bf16 (or FP8 with per-tensor scales) with
// fp32 accumulation through cuBLASLt. Row-major C is column-major Cᵀ[N, M] = B · Aᵀ, i.e. cuBLAS's "TN" case with m = N,
// n = M. The heuristic proposes several algorithms; each is timed with a cold L2 and the fastest
// is kept, cached on disk per (device fingerprint, cuBLASLt version, shape, workspace).
#pragma once
#include <filesystem>
#include <memory>

#include "ptxbench/eval/correctness/gpu/baseline.hpp"

namespace ptxbench::eval::gpu {

struct GemmShape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
};

// Fails (value) when the job is not a bf16 [M,K]·[N,K]ᵀ -> [M,N] GEMM cuBLASLt can run.
util::Expected<std::unique_ptr<Baseline>> make_cublaslt_gemm(const worker::WorkerJob& job,
                                                             cudaStream_t stream);

// The FP8 form: e4m3 A[M,K], B[N,K], fp32 device scalars SCALE_A, SCALE_B (per-tensor scales),
// bf16 C = SCALE_A·SCALE_B·A·Bᵀ, fp32 accumulation with promotion (CUBLASLT_MATMUL_DESC_FAST_ACCUM
// off), the same algorithm search and cache.
util::Expected<std::unique_ptr<Baseline>> make_cublaslt_gemm_fp8(const worker::WorkerJob& job,
                                                                 cudaStream_t stream);

}  // namespace ptxbench::eval::gpu
