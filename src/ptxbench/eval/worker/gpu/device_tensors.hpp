// A workload's tensors on the GPU: every input and output of a job allocated contiguously
// (row-major, as the task's shape says), inputs filled from the workload's distribution and a
// seed by a counter-based generator on the GPU (the same seed gives the same bits in any
// process), outputs poisoned with NaN. Each allocation is fresh, so two DeviceTensors alive at
// once never share addresses: callers keep the previous trial's tensors alive while allocating
// the next so a candidate that caches by address is seen.
#pragma once
#include <cuda_runtime.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <span>
#include <vector>

#include "ptxbench/eval/worker/gpu/device_buffer.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::gpu {

class Baseline;

// One tensor: its description, its memory and a DLTensor view of both. The memory is owned,
// or, for a view(), borrowed from its owner.
class DeviceTensor {
 public:
  DeviceTensor(worker::TensorDesc desc, DeviceBuffer buffer);
  // A tensor over device memory someone else owns (another framework's tensor, for timing both
  // on the same operands): `data` must stay allocated, hold desc.bytes() bytes and be compact
  // row-major while the view is used; the view never frees it. Views are outside the
  // fresh-address guarantee above: their owner decides where they point.
  static DeviceTensor view(worker::TensorDesc desc, void* data);
  DeviceTensor(DeviceTensor&& other) noexcept;
  DeviceTensor& operator=(DeviceTensor&& other) noexcept;
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  const worker::TensorDesc& desc() const { return desc_; }
  void* data() const { return borrowed_ != nullptr ? borrowed_ : buffer_.data(); }
  std::size_t bytes() const { return borrowed_ != nullptr ? desc_.bytes() : buffer_.bytes(); }
  bool is_view() const { return borrowed_ != nullptr; }
  std::int64_t elements() const { return desc_.elements(); }
  DLTensor* dl() { return &dl_; }

  void fill_random(task::Distribution distribution, std::uint64_t seed, cudaStream_t stream);
  void poison(cudaStream_t stream);               // NaN for floating types, a sentinel for integers
  std::uint64_t hash(cudaStream_t stream) const;  // order-sensitive hash of the bytes (syncs)

 private:
  void bind_view();  // points dl_ at desc_.shape and buffer_

  worker::TensorDesc desc_;
  DeviceBuffer buffer_;
  void* borrowed_ = nullptr;  // set only for a view(); then buffer_ is empty
  DLTensor dl_{};
};

class DeviceTensors {
 public:
  // Allocates the job's inputs and outputs; out of memory is an Error value.
  static util::Expected<DeviceTensors> allocate(const worker::WorkerJob& job);

  std::vector<DeviceTensor>& inputs() { return inputs_; }
  std::vector<DeviceTensor>& outputs() { return outputs_; }
  const std::vector<DeviceTensor>& inputs() const { return inputs_; }
  const std::vector<DeviceTensor>& outputs() const { return outputs_; }
  // inputs then outputs, in ABI order, for CandidateLibrary::call.
  std::vector<DLTensor*> arguments();

  void fill_random_inputs(task::Distribution distribution, std::uint64_t seed, cudaStream_t stream);
  // The job's inputs as a trial draws them: random (fill_random_inputs), then shaped by the
  // operator's rules for drawn values (decode: KV_LEN's draw becomes the valid lengths,
  // correctness/decode_lengths.hpp). Inputs derived by the baseline are not touched.
  void draw_inputs(const worker::WorkerJob& job, std::uint64_t seed, cudaStream_t stream);
  void poison_outputs(cudaStream_t stream);
  // Hash of every input, in order (syncs the stream).
  std::uint64_t hash_inputs(cudaStream_t stream) const;

 private:
  std::vector<DeviceTensor> inputs_;
  std::vector<DeviceTensor> outputs_;
};

// The tensors of one trial: allocated, random inputs from (distribution, seed), except inputs
// the operator derives (attention backward: O and LSE from the reference forward on the same
// Q, K, V), outputs poisoned. Done on `stream`; synchronised before returning. `baseline`
// derives those inputs; when null and the operator needs one, one is made for the call.
util::Expected<DeviceTensors> make_trial_tensors(const worker::WorkerJob& job, std::uint64_t seed,
                                                 cudaStream_t stream, Baseline* baseline = nullptr);

}  // namespace ptxbench::eval::gpu
