#include "ptxbench/eval/correctness/gpu/baseline.hpp"

#include <fmt/format.h>

#include "ptxbench/eval/correctness/gpu/cublaslt_gemm.hpp"
#include "ptxbench/eval/correctness/gpu/cudnn_sdpa.hpp"

namespace ptxbench::eval::gpu {

void Baseline::derive_inputs(std::span<DeviceTensor> /*inputs*/, cudaStream_t /*stream*/) {}

bool operator_derives_inputs(const worker::WorkerJob& job) {
  return job.op_type == task::OpType::kMhaBwd;
}

util::Expected<std::unique_ptr<Baseline>> make_baseline(const worker::WorkerJob& job,
                                                        cudaStream_t stream) {
  switch (job.baseline) {
    case task::Baseline::kCublasLtGemmBf16Nt:
      return make_cublaslt_gemm(job, stream);
    case task::Baseline::kCudnnSdpaFwd:
      return make_cudnn_sdpa_forward(job, stream);
    case task::Baseline::kCudnnSdpaBwd:
      return make_cudnn_sdpa_backward(job, stream);
    case task::Baseline::kCublasLtGemmFp8Nt:
      return make_cublaslt_gemm_fp8(job, stream);
    case task::Baseline::kCudnnSdpaDecode:
      return make_cudnn_sdpa_decode(job, stream);
  }
  return util::make_error(fmt::format("no baseline named '{}'", job.baseline));
}

}  // namespace ptxbench::eval::gpu
