// The vendor-library implementation of a task's operator: the correctness reference and the
// speedup denominator. GEMM: cuBLASLt with an algorithm search; attention: cuDNN's SDPA graphs
// through cudnn-frontend. A Baseline is built once per process for one job's shapes (plans,
// workspaces and algorithm choice are made then) and run many times on any tensors of those
// shapes.
#pragma once
#include <cuda_runtime.h>

#include <memory>
#include <span>
#include <string>

#include "ptxbench/eval/worker/gpu/device_tensors.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::gpu {

class Baseline {
 public:
  virtual ~Baseline() = default;
  // One line for the record: library, algorithm/engine, and how it was chosen.
  virtual std::string describe() const = 0;
  // Computes the reference outputs from the inputs (both in ABI order) on `stream`.
  virtual void run(std::span<DeviceTensor> inputs, std::span<DeviceTensor> outputs,
                   cudaStream_t stream) = 0;
  // Fills the inputs the operator derives from the others (attention backward: O and LSE from
  // the forward on the same Q, K, V). The default derives nothing.
  virtual void derive_inputs(std::span<DeviceTensor> inputs, cudaStream_t stream);
};

// Whether some inputs of the job's operator are derived rather than random.
bool operator_derives_inputs(const worker::WorkerJob& job);

// The baseline the job names ("cublaslt.gemm_bf16_nt", "cudnn.sdpa_fwd", "cudnn.sdpa_bwd").
// An unknown name or unsupported shape/dtype is an Error value.
util::Expected<std::unique_ptr<Baseline>> make_baseline(const worker::WorkerJob& job,
                                                        cudaStream_t stream);

}  // namespace ptxbench::eval::gpu
