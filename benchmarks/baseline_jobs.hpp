// The jobs the baseline benchmarks time: the same WorkerJob descriptions ptxbench's GPU stages
// build for a GEMM or attention task, so make_baseline picks the same algorithm (and reads the
// same on-disk choice) as the timing stage. Used by the C API that
// benchmarks/interleaved_baselines.py loads.
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ptxbench/eval/cache_folders.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"

namespace ptxbench::bench {

inline eval::worker::TensorDesc tensor(std::string name, std::vector<std::int64_t> shape,
                                       task::DType dtype = task::DType::kBFloat16) {
  return eval::worker::TensorDesc{
      .name = std::move(name), .dtype = dtype, .shape = std::move(shape)};
}

// C[M, N] = A[M, K] · B[N, K]ᵀ in bf16 (cuBLASLt with its algorithm search).
inline eval::worker::WorkerJob gemm_job(std::int64_t m, std::int64_t n, std::int64_t k) {
  eval::worker::WorkerJob job;
  job.op_type = task::OpType::kGemm;
  job.baseline = task::Baseline::kCublasLtGemmBf16Nt;
  job.workload = fmt::format("M{} N{} K{}", m, n, k);
  job.inputs = {tensor("A", {m, k}), tensor("B", {n, k})};
  job.outputs = {tensor("C", {m, n})};
  job.cache_dir = eval::default_baseline_cache_dir();
  return job;
}

// Attention on bf16 [B, H, S, D], scale 1/sqrt(D). Forward: Q, K, V -> O, LSE (fp32 [B, H, S]);
// backward: Q, K, V, O, dO, LSE -> dQ, dK, dV (cuDNN SDPA through cudnn-frontend).
inline eval::worker::WorkerJob attention_job(bool backward, std::int64_t b, std::int64_t h,
                                             std::int64_t s, std::int64_t d, bool causal) {
  eval::worker::WorkerJob job;
  job.op_type = backward ? task::OpType::kMhaBwd : task::OpType::kMhaFwdLse;
  job.baseline = backward ? task::Baseline::kCudnnSdpaBwd : task::Baseline::kCudnnSdpaFwd;
  job.workload = fmt::format("B{} H{} S{} D{}{}", b, h, s, d, causal ? " causal" : "");
  job.parameters = {{"causal", causal ? 1.0 : 0.0}};
  auto bhsd = [&](const char* name) { return tensor(name, {b, h, s, d}); };
  auto lse = tensor("LSE", {b, h, s}, task::DType::kFloat32);
  if (backward) {
    job.inputs = {bhsd("Q"), bhsd("K"), bhsd("V"), bhsd("O"), bhsd("dO"), lse};
    job.outputs = {bhsd("dQ"), bhsd("dK"), bhsd("dV")};
  } else {
    job.inputs = {bhsd("Q"), bhsd("K"), bhsd("V")};
    job.outputs = {bhsd("O"), lse};
  }
  job.cache_dir = eval::default_baseline_cache_dir();
  return job;
}

// Floating-point operations of one call: 2MNK; attention forward 4·B·H·S²·D (half when
// causal), backward 2.5 times the forward.
inline double job_flops(const eval::worker::WorkerJob& job) {
  const auto& a = job.inputs[0].shape;
  if (job.op_type == task::OpType::kGemm) return 2.0 * a[0] * job.inputs[1].shape[0] * a[1];
  double forward = 4.0 * a[0] * a[1] * a[2] * a[2] * a[3];
  if (job.parameters.at("causal") != 0) forward /= 2;
  return job.op_type == task::OpType::kMhaBwd ? 2.5 * forward : forward;
}

// The shapes compared with PyTorch (benchmarks/interleaved_baselines.py lists the same): four
// bf16 GEMMs, and attention at B4 H48 S4096 D128, forward and backward, causal and not.
inline std::vector<eval::worker::WorkerJob> compared_jobs() {
  return {gemm_job(8192, 8192, 8192),
          gemm_job(4096, 7168, 5120),
          gemm_job(8192, 2048, 7168),
          gemm_job(8192, 7168, 5120),
          attention_job(false, 4, 48, 4096, 128, false),
          attention_job(true, 4, 48, 4096, 128, false),
          attention_job(false, 4, 48, 4096, 128, true),
          attention_job(true, 4, 48, 4096, 128, true)};
}

}  // namespace ptxbench::bench
