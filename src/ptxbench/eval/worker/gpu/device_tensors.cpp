#include "ptxbench/eval/worker/gpu/device_tensors.hpp"

#include <memory>
#include <utility>
#include <vector>

#include "ptxbench/eval/correctness/decode_lengths.hpp"
#include "ptxbench/eval/correctness/gpu/baseline.hpp"
#include "ptxbench/eval/correctness/gpu/tensor_kernels.hpp"
#include "ptxbench/util/hash.hpp"

namespace ptxbench::eval::gpu {
namespace {

DLDataType dl_dtype(task::DType dtype) {
  switch (dtype) {
    case task::DType::kBFloat16:
      return DLDataType{kDLBfloat, 16, 1};
    case task::DType::kFloat16:
      return DLDataType{kDLFloat, 16, 1};
    case task::DType::kFloat32:
      return DLDataType{kDLFloat, 32, 1};
    case task::DType::kFloat8E4M3:
      return DLDataType{kDLFloat8_e4m3fn, 8, 1};
    case task::DType::kFloat8E5M2:
      return DLDataType{kDLFloat8_e5m2, 8, 1};
    case task::DType::kInt32:
      return DLDataType{kDLInt, 32, 1};
    case task::DType::kInt64:
      return DLDataType{kDLInt, 64, 1};
  }
  PTXBENCH_CHECK(false, "unknown dtype");
  return DLDataType{};
}

util::Expected<std::vector<DeviceTensor>> allocate_all(
    const std::vector<worker::TensorDesc>& descs) {
  std::vector<DeviceTensor> tensors;
  tensors.reserve(descs.size());
  for (const auto& desc : descs) {
    auto buffer = DeviceBuffer::try_allocate(desc.bytes());
    if (!buffer) return util::make_error(desc.name + ": " + buffer.error().message);
    tensors.emplace_back(desc, std::move(buffer.value()));
  }
  return tensors;
}

}  // namespace

DeviceTensor::DeviceTensor(worker::TensorDesc desc, DeviceBuffer buffer)
    : desc_(std::move(desc)), buffer_(std::move(buffer)) {
  bind_view();
}

DeviceTensor DeviceTensor::view(worker::TensorDesc desc, void* data) {
  PTXBENCH_CHECK(data != nullptr || desc.bytes() == 0, "a tensor view needs memory to point at");
  DeviceTensor tensor(std::move(desc), DeviceBuffer());
  tensor.borrowed_ = data;
  tensor.bind_view();
  return tensor;
}

DeviceTensor::DeviceTensor(DeviceTensor&& other) noexcept
    : desc_(std::move(other.desc_)),
      buffer_(std::move(other.buffer_)),
      borrowed_(std::exchange(other.borrowed_, nullptr)) {
  bind_view();
}

DeviceTensor& DeviceTensor::operator=(DeviceTensor&& other) noexcept {
  desc_ = std::move(other.desc_);
  buffer_ = std::move(other.buffer_);
  borrowed_ = std::exchange(other.borrowed_, nullptr);
  bind_view();
  return *this;
}

void DeviceTensor::bind_view() {
  int device = 0;
  cudaGetDevice(&device);
  dl_ = DLTensor{};
  dl_.data = data();
  dl_.device = DLDevice{kDLCUDA, device};
  dl_.ndim = static_cast<std::int32_t>(desc_.shape.size());
  dl_.dtype = dl_dtype(desc_.dtype);
  dl_.shape = desc_.shape.data();
  dl_.strides = nullptr;  // compact row-major
  dl_.byte_offset = 0;
}

void DeviceTensor::fill_random(task::Distribution distribution, std::uint64_t seed,
                               cudaStream_t stream) {
  const auto& shape = desc_.shape;
  const std::int64_t rows = shape.size() >= 2 ? shape[shape.size() - 2] : 0;
  const std::int64_t cols = shape.empty() ? 0 : shape.back();
  gpu::fill_random(data(), desc_.dtype, elements(), distribution, seed, stream, rows, cols);
}

void DeviceTensor::poison(cudaStream_t stream) {
  fill_poison(data(), desc_.dtype, elements(), stream);
}

std::uint64_t DeviceTensor::hash(cudaStream_t stream) const {
  return hash_bytes(data(), bytes(), stream);
}

util::Expected<DeviceTensors> DeviceTensors::allocate(const worker::WorkerJob& job) {
  DeviceTensors tensors;
  auto inputs = allocate_all(job.inputs);
  if (!inputs) return inputs.error();
  auto outputs = allocate_all(job.outputs);
  if (!outputs) return outputs.error();
  tensors.inputs_ = std::move(inputs.value());
  tensors.outputs_ = std::move(outputs.value());
  return tensors;
}

std::vector<DLTensor*> DeviceTensors::arguments() {
  std::vector<DLTensor*> args;
  for (auto& t : inputs_) args.push_back(t.dl());
  for (auto& t : outputs_) args.push_back(t.dl());
  return args;
}

void DeviceTensors::fill_random_inputs(task::Distribution distribution, std::uint64_t seed,
                                       cudaStream_t stream) {
  // Each input gets its own stream of numbers: the seed mixed with the input's position.
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    inputs_[i].fill_random(distribution,
                           util::Fnv1a64().add(std::to_string(seed)).add(std::to_string(i)).value(),
                           stream);
  }
}

void DeviceTensors::draw_inputs(const worker::WorkerJob& job, std::uint64_t seed,
                                cudaStream_t stream) {
  fill_random_inputs(job.distribution, seed, stream);
  if (job.op_type != task::OpType::kMhaDecode || inputs_.size() < 4) return;
  DeviceTensor& lengths = inputs_[3];  // KV_LEN int32 [B]; K [B, HKV, S, D] gives S
  if (lengths.desc().dtype != task::DType::kInt32 || inputs_[1].desc().shape.size() != 4) return;
  const std::int64_t capacity = inputs_[1].desc().shape[2];
  std::vector<std::int32_t> values(static_cast<std::size_t>(lengths.elements()));
  PTXBENCH_CUDA_CHECK(cudaMemcpyAsync(values.data(), lengths.data(), lengths.bytes(),
                                      cudaMemcpyDeviceToHost, stream));
  PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (std::size_t b = 0; b < values.size(); ++b) {
    values[b] = correctness::kv_length_from_draw(values[b], static_cast<std::int64_t>(b), capacity);
  }
  PTXBENCH_CUDA_CHECK(cudaMemcpyAsync(lengths.data(), values.data(), lengths.bytes(),
                                      cudaMemcpyHostToDevice, stream));
  PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));  // `values` is pageable and local
}

void DeviceTensors::poison_outputs(cudaStream_t stream) {
  for (auto& t : outputs_) t.poison(stream);
}

std::uint64_t DeviceTensors::hash_inputs(cudaStream_t stream) const {
  util::Fnv1a64 combined;
  for (const auto& t : inputs_) combined.add(std::to_string(t.hash(stream)));
  return combined.value();
}

util::Expected<DeviceTensors> make_trial_tensors(const worker::WorkerJob& job, std::uint64_t seed,
                                                 cudaStream_t stream, Baseline* baseline) {
  auto tensors = DeviceTensors::allocate(job);
  if (!tensors) return tensors.error();
  tensors->draw_inputs(job, seed, stream);
  if (operator_derives_inputs(job)) {
    std::unique_ptr<Baseline> owned;
    if (baseline == nullptr) {
      auto made = make_baseline(job, stream);
      if (!made) return made.error();
      owned = std::move(made.value());
      baseline = owned.get();
    }
    baseline->derive_inputs(tensors->inputs(), stream);
  }
  tensors->poison_outputs(stream);
  PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return tensors;
}

}  // namespace ptxbench::eval::gpu
