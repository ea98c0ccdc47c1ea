#include "ptxbench/eval/correctness/gpu/baseline.hpp"

#include "ptxbench/eval/correctness/gpu/cublaslt_gemm.hpp"
#include "ptxbench/eval/correctness/gpu/cudnn_sdpa.hpp"

namespace ptxbench::eval::gpu {

void Baseline::derive_inputs(std::span<DeviceTensor> /*inputs*/, cudaStream_t /*stream*/) {}

bool operator_derives_inputs(const worker::WorkerJob& job) {
  return job.op_type == "mha_bwd";
}

util::Expected<std::unique_ptr<Baseline>> make_baseline(const worker::WorkerJob& job,
                                                        cudaStream_t stream) {
  if (job.baseline == "cublaslt.gemm_bf16_nt") return make_cublaslt_gemm(job, stream);
  if (job.baseline == "cudnn.sdpa_fwd") return make_cudnn_sdpa_forward(job, stream);
  if (job.baseline == "cudnn.sdpa_bwd") return make_cudnn_sdpa_backward(job, stream);
  return util::make_error("no baseline named '" + job.baseline + "'");
}

}  // namespace ptxbench::eval::gpu
