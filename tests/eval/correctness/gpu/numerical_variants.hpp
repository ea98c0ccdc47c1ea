// Simple candidate kernels (no tensor cores) whose numerics are right or wrong in named ways,
// for the tests of the "as accurate as the library" rule. Attention: one warp per output row,
// online softmax one key at a time; GEMM: one thread per output element. Layouts as the tasks'.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "ptxbench/eval/correctness/gpu/attention_reference.hpp"

namespace ptxbench::eval::correctness::test {

enum class ForwardVariant {
  kProbabilitiesInFp32,  // correct: keeps P in fp32, exp2 with log2(e) folded into the scale
  kProbabilitiesInBf16,  // correct, rounds like a tensor-core kernel: P rounded to bf16 for P·V
  kMissingRescale,       // bug: the running output is not rescaled when the running max grows
  kLogSumExpInBase2,     // bug: LSE = log2 Σ 2^(log2(e)·s) instead of the natural log
  kBf16Accumulation,     // bug: the running output is held (and rounded) in bf16
};

enum class BackwardVariant {
  kFp32,              // correct: every sum in fp32, keys (or queries) in reverse order
  kBf16Accumulation,  // bug: dK and dV are accumulated in bf16
};

enum class GemmVariant {
  kReversedOrder,     // correct: fp32 sum over k from the last to the first
  kBf16Accumulation,  // bug: the running sum is rounded to bf16 after every product
};

const char* to_string(ForwardVariant variant);
const char* to_string(BackwardVariant variant);
const char* to_string(GemmVariant variant);

void run_forward(ForwardVariant variant, const __nv_bfloat16* q, const __nv_bfloat16* k,
                 const __nv_bfloat16* v, __nv_bfloat16* o, float* lse,
                 const gpu::AttentionDims& dims, cudaStream_t stream);

void run_backward(BackwardVariant variant, const __nv_bfloat16* q, const __nv_bfloat16* k,
                  const __nv_bfloat16* v, const __nv_bfloat16* o, const __nv_bfloat16* d_o,
                  const float* lse, __nv_bfloat16* dq, __nv_bfloat16* dk, __nv_bfloat16* dv,
                  const gpu::AttentionDims& dims, cudaStream_t stream);

void run_gemm(GemmVariant variant, const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c,
              std::int64_t m, std::int64_t n, std::int64_t k, cudaStream_t stream);

}  // namespace ptxbench::eval::correctness::test
