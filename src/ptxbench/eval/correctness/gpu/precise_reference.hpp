// The high-precision reference of a job's operator: fp32 tensors (one per output, same shape
// and order) computed on the trusted side from the trial's inputs by simple kernels of our
// own — GEMM with fp64 sums, attention forward and backward in fp32 throughout. A job whose
// operator, dtypes or head dimension has none gets an Error value; its outputs are then judged
// by the original element rule alone.
#pragma once
#include <cuda_runtime.h>

#include <span>
#include <string>
#include <vector>

#include "ptxbench/eval/worker/gpu/device_buffer.hpp"
#include "ptxbench/eval/worker/gpu/device_tensors.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::correctness::gpu {

// "fp64-sum GEMM", "fp32 tiled attention forward", ...; an Error when the job has none.
util::Expected<std::string> precise_reference_name(const worker::WorkerJob& job);

// Runs the reference on `inputs` (ABI order) into fresh fp32 buffers, one per output
// (stream-ordered; out of memory is an Error value).
util::Expected<std::vector<eval::gpu::DeviceBuffer>> compute_precise_reference(
    const worker::WorkerJob& job, std::span<const eval::gpu::DeviceTensor> inputs,
    cudaStream_t stream);

}  // namespace ptxbench::eval::correctness::gpu
