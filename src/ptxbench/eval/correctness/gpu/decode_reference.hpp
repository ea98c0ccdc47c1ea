// High-precision decode attention reference on the GPU (the trusted side): one query per
// sequence and query head over the first KV_LEN[b] keys of its KV head (h / (H / HKV)), scores,
// softmax and P·V in fp64, O and the natural-log LSE stored as fp32, never rounded to bf16.
// Layouts as the decode tasks define them: Q, O [B, H, D], K, V [B, HKV, S, D], KV_LEN int32 [B],
// LSE [B, H]. Stream-ordered; the scores go through a scratch buffer the call allocates.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace ptxbench::eval::correctness::gpu {

struct DecodeDims {
  std::int64_t batch = 0;
  std::int64_t q_heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t capacity = 0;  // S: positions per sequence in K and V
  std::int64_t head_dim = 0;
  float scale = 0;
};

void decode_reference(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                      const std::int32_t* kv_len, float* o, float* lse, const DecodeDims& dims,
                      cudaStream_t stream);

}  // namespace ptxbench::eval::correctness::gpu
