// The attention baselines: cuDNN's fused scaled-dot-product attention through cudnn-frontend
// graphs. Forward produces O and the softmax statistics (cuDNN's "Stats": natural-log
// log-sum-exp of the scaled scores, fp32 [B, H, S, 1], which is our LSE [B, H, S]); backward
// takes Q, K, V, O, dO and the statistics and produces dQ, dK, dV. Tensors are [B, H, S, D]
// contiguous, as the tasks define them. The engine is chosen by timing the heuristic's plans
// once per (device fingerprint, cuDNN version, shape) and cached on disk by plan name.
#pragma once
#include <memory>

#include "ptxbench/eval/correctness/gpu/baseline.hpp"

namespace ptxbench::eval::gpu {

struct AttentionShape {
  std::int64_t batch = 0;
  std::int64_t q_heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t q_len = 0;
  std::int64_t kv_len = 0;
  std::int64_t head_dim = 0;
  bool causal = false;
  double scale = 0;  // the task's "scale", else 1/sqrt(head_dim)
};

util::Expected<std::unique_ptr<Baseline>> make_cudnn_sdpa_forward(const worker::WorkerJob& job,
                                                                  cudaStream_t stream);
// Decode: Q [B, H, D], K, V [B, HKV, S, D], KV_LEN int32 [B] -> O [B, H, D], LSE [B, H];
// the forward graph with cuDNN's padding mask over the lengths KV_LEN holds.
util::Expected<std::unique_ptr<Baseline>> make_cudnn_sdpa_decode(const worker::WorkerJob& job,
                                                                 cudaStream_t stream);
util::Expected<std::unique_ptr<Baseline>> make_cudnn_sdpa_backward(const worker::WorkerJob& job,
                                                                   cudaStream_t stream);

}  // namespace ptxbench::eval::gpu
