#include "ptxbench/eval/correctness/gpu/trial_accuracy.hpp"

#include "ptxbench/eval/correctness/accuracy_rule.hpp"
#include "ptxbench/eval/correctness/gpu/accuracy_reduction.hpp"
#include "ptxbench/eval/correctness/gpu/precise_reference.hpp"

namespace ptxbench::eval::correctness::gpu {

TrialAccuracy::TrialAccuracy(const worker::WorkerJob& job,
                             std::span<const eval::gpu::DeviceTensor> inputs, cudaStream_t stream)
    : job_(job) {
  auto reference = compute_precise_reference(job, inputs, stream);
  if (reference) {
    reference_ = std::move(reference.value());
  } else {
    unavailable_ = reference.error().message;
  }
}

TrialAccuracy::TrialAccuracy(const worker::WorkerJob& job,
                             std::vector<eval::gpu::DeviceBuffer> reference,
                             std::string unavailable)
    : job_(job), reference_(std::move(reference)), unavailable_(std::move(unavailable)) {}

void TrialAccuracy::add_to(JudgedOutput& record, std::size_t index, const void* candidate,
                           const eval::gpu::DeviceTensor& library, cudaStream_t stream) const {
  if (index >= reference_.size()) {
    record.accuracy_unavailable = unavailable_;
    return;
  }
  const worker::TensorDesc& desc = library.desc();
  const ElementBudget budget{
      .factor = kLibraryErrorFactor, .atol = job_.tolerance.atol, .rtol = job_.tolerance.rtol};
  record.accuracy = reduce_accuracy(candidate, library.data(), reference_[index].as<float>(),
                                    desc.dtype, desc.elements(), budget, stream);
}

}  // namespace ptxbench::eval::correctness::gpu
