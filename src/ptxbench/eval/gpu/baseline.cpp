#include "ptxbench/eval/gpu/baseline.hpp"

namespace ptxbench::eval::gpu {

void Baseline::derive_inputs(std::span<DeviceTensor> /*inputs*/, cudaStream_t /*stream*/) {}

bool operator_derives_inputs(const worker::WorkerJob& job) {
  return job.op_type == "mha_bwd";
}

util::Expected<std::unique_ptr<Baseline>> make_baseline(const worker::WorkerJob& job,
                                                        cudaStream_t /*stream*/) {
  return util::make_error("no baseline named '" + job.baseline + "' in this build");
}

}  // namespace ptxbench::eval::gpu
