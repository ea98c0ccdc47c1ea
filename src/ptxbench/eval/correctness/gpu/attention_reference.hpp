// High-precision attention references on the GPU (the trusted side): tiled, fp32 throughout
// (scores, softmax, P, every product and sum), natural-log LSE, results stored as fp32 — never
// rounded to the task's bf16. Layouts as the tasks define them: Q, O, dO, dQ [B, Hq, Sq, D],
// K, V, dK, dV [B, Hkv, Skv, D] contiguous (Hkv divides Hq), LSE [B, Hq, Sq]. Head dimensions
// 64, 96, 128 and 256. Stream-ordered; nothing is synchronised.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace ptxbench::eval::correctness::gpu {

struct AttentionDims {
  std::int64_t batch = 0;
  std::int64_t q_heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t q_len = 0;
  std::int64_t kv_len = 0;
  int head_dim = 0;
  bool causal = false;  // key j is seen by query i iff j <= i
  float scale = 0;
};

bool attention_reference_supports(int head_dim);

// O = softmax(scale·Q·Kᵀ)·V and LSE = ln Σ_j exp(scale·q_i·k_j), online over key tiles.
void attention_forward_reference(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                 const __nv_bfloat16* v, float* o, float* lse,
                                 const AttentionDims& dims, cudaStream_t stream);

// dQ, dK, dV from the forward's O and LSE (as given, like the operator's contract):
// P = exp(scale·q·kᵀ − LSE), Δ = rowsum(dO∘O), dS = P∘(dO·Vᵀ − Δ), dV = Pᵀ·dO,
// dQ = scale·dS·K, dK = scale·dSᵀ·Q. One kernel per query tile for dQ, one per key tile for
// dK and dV (no atomics: every output element is summed by one thread in a fixed order).
void attention_backward_reference(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                  const __nv_bfloat16* v, const __nv_bfloat16* o,
                                  const __nv_bfloat16* d_o, const float* lse, float* dq, float* dk,
                                  float* dv, const AttentionDims& dims, cudaStream_t stream);

}  // namespace ptxbench::eval::correctness::gpu
