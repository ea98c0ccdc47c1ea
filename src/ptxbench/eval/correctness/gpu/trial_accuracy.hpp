// The judge's side of "as accurate as the library" for one trial: the high-precision reference
// on the trial's inputs, then per output the streamed totals of candidate and library against
// it, added to the output's record as its accuracy totals (or why there are none).
#pragma once
#include <cuda_runtime.h>

#include <span>
#include <string>
#include <vector>

#include "ptxbench/eval/correctness/correctness_protocol.hpp"
#include "ptxbench/eval/worker/gpu/device_buffer.hpp"
#include "ptxbench/eval/worker/gpu/device_tensors.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"

namespace ptxbench::eval::correctness::gpu {

class TrialAccuracy {
 public:
  // Runs the reference (stream-ordered); a job without one, or no memory for it, is recorded.
  TrialAccuracy(const worker::WorkerJob& job, std::span<const eval::gpu::DeviceTensor> inputs,
                cudaStream_t stream);
  // The reference (or why there is none) found in the reference cache.
  TrialAccuracy(const worker::WorkerJob& job, std::vector<eval::gpu::DeviceBuffer> reference,
                std::string unavailable);

  // The fp32 reference per output (empty when unavailable), and why it is unavailable.
  const std::vector<eval::gpu::DeviceBuffer>& reference() const { return reference_; }
  const std::string& unavailable() const { return unavailable_; }

  // Adds the figures of output `index` to `record`; waits for the stream.
  void add_to(JudgedOutput& record, std::size_t index, const void* candidate,
              const eval::gpu::DeviceTensor& library, cudaStream_t stream) const;

 private:
  const worker::WorkerJob& job_;
  std::vector<eval::gpu::DeviceBuffer> reference_;  // fp32, one per output; empty if unavailable
  std::string unavailable_;
};

}  // namespace ptxbench::eval::correctness::gpu
