#include "ptxbench/eval/correctness/gpu/precise_reference.hpp"

#include <fmt/format.h>

#include <cmath>

#include "ptxbench/eval/correctness/gpu/accuracy_reduction.hpp"
#include "ptxbench/eval/correctness/gpu/attention_reference.hpp"
#include "ptxbench/eval/correctness/gpu/decode_reference.hpp"
#include "ptxbench/eval/correctness/gpu/gemm_reference.hpp"

namespace ptxbench::eval::correctness::gpu {
namespace {

using eval::gpu::DeviceBuffer;
using worker::TensorDesc;

bool all_bf16(const std::vector<TensorDesc>& tensors, std::size_t count) {
  if (tensors.size() < count) return false;
  for (std::size_t i = 0; i < count; ++i) {
    if (tensors[i].dtype != task::DType::kBFloat16) return false;
  }
  return true;
}

bool outputs_reducible(const worker::WorkerJob& job) {
  for (const auto& output : job.outputs) {
    if (!accuracy_reduction_supports(output.dtype)) return false;
  }
  return true;
}

util::Expected<AttentionDims> attention_dims(const worker::WorkerJob& job, bool backward) {
  std::size_t inputs = backward ? 6 : 3, outputs = backward ? 3 : 2;
  if (job.inputs.size() != inputs || job.outputs.size() != outputs ||
      !all_bf16(job.inputs, backward ? 5 : 3)) {
    return util::make_error("attention reference: unexpected tensors");
  }
  const TensorDesc& q = job.inputs[0];
  const TensorDesc& k = job.inputs[1];
  if (q.shape.size() != 4 || k.shape.size() != 4 || k.shape[0] != q.shape[0] ||
      k.shape[3] != q.shape[3] || k.shape[1] == 0 || q.shape[1] % k.shape[1] != 0) {
    return util::make_error("attention reference: Q, K must be [B, H, S, D] with Hkv | H");
  }
  AttentionDims dims{.batch = q.shape[0],
                     .q_heads = q.shape[1],
                     .kv_heads = k.shape[1],
                     .q_len = q.shape[2],
                     .kv_len = k.shape[2],
                     .head_dim = static_cast<int>(q.shape[3])};
  if (!attention_reference_supports(dims.head_dim)) {
    return util::make_error("attention reference: no kernel for head dimension " +
                            std::to_string(dims.head_dim));
  }
  auto causal = job.parameters.find("causal");
  dims.causal = causal != job.parameters.end() && causal->second != 0;
  auto scale = job.parameters.find("scale");
  dims.scale = static_cast<float>(scale != job.parameters.end()
                                      ? scale->second
                                      : 1.0 / std::sqrt(static_cast<double>(dims.head_dim)));
  return dims;
}

bool is_fp8_gemm(const worker::WorkerJob& job) {
  return job.inputs.size() == 4 && job.outputs.size() == 1 &&
         job.inputs[0].dtype == task::DType::kFloat8E4M3 &&
         job.inputs[1].dtype == task::DType::kFloat8E4M3 && job.inputs[0].shape.size() == 2 &&
         job.inputs[1].shape.size() == 2 && job.inputs[2].dtype == task::DType::kFloat32 &&
         job.inputs[2].shape.empty() && job.inputs[3].dtype == task::DType::kFloat32 &&
         job.inputs[3].shape.empty();
}

util::Expected<DecodeDims> decode_dims(const worker::WorkerJob& job) {
  if (job.inputs.size() != 4 || job.outputs.size() != 2 || !all_bf16(job.inputs, 3) ||
      job.inputs[3].dtype != task::DType::kInt32) {
    return util::make_error("decode reference: needs bf16 Q, K, V, int32 KV_LEN and O, LSE");
  }
  const TensorDesc& q = job.inputs[0];
  const TensorDesc& k = job.inputs[1];
  if (q.shape.size() != 3 || k.shape.size() != 4 || k.shape[0] != q.shape[0] ||
      k.shape[3] != q.shape[2] || k.shape[1] == 0 || q.shape[1] % k.shape[1] != 0 ||
      job.inputs[3].shape != std::vector<std::int64_t>{q.shape[0]}) {
    return util::make_error(
        "decode reference: Q [B, H, D], K [B, HKV, S, D] with HKV | H, KV_LEN [B]");
  }
  DecodeDims dims{.batch = q.shape[0],
                  .q_heads = q.shape[1],
                  .kv_heads = k.shape[1],
                  .capacity = k.shape[2],
                  .head_dim = q.shape[2]};
  auto scale = job.parameters.find("scale");
  dims.scale = static_cast<float>(scale != job.parameters.end()
                                      ? scale->second
                                      : 1.0 / std::sqrt(static_cast<double>(dims.head_dim)));
  return dims;
}

util::Expected<std::vector<DeviceBuffer>> fp32_outputs(const worker::WorkerJob& job) {
  std::vector<DeviceBuffer> buffers;
  for (const auto& output : job.outputs) {
    auto buffer =
        DeviceBuffer::try_allocate(static_cast<std::size_t>(output.elements()) * sizeof(float));
    if (!buffer) return buffer.error();
    buffers.push_back(std::move(buffer.value()));
  }
  return buffers;
}

template <class T>
const T* data_of(const eval::gpu::DeviceTensor& tensor) {
  return static_cast<const T*>(tensor.data());
}

}  // namespace

util::Expected<std::string> precise_reference_name(const worker::WorkerJob& job) {
  if (!outputs_reducible(job)) return util::make_error("no high-precision reference: output dtype");
  if (job.op_type == task::OpType::kGemm) {
    if (job.inputs.size() != 2 || job.outputs.size() != 1 || !all_bf16(job.inputs, 2) ||
        job.inputs[0].shape.size() != 2 || job.inputs[1].shape.size() != 2) {
      return util::make_error("gemm reference: needs bf16 A[M,K], B[N,K] and one output");
    }
    return std::string("GEMM with exact bf16 products summed in fp64");
  }
  if (job.op_type == task::OpType::kGemmFp8) {
    if (!is_fp8_gemm(job)) {
      return util::make_error(
          "fp8 gemm reference: needs e4m3 A[M,K], B[N,K], fp32 scalars SCALE_A, SCALE_B, one "
          "output");
    }
    return std::string("FP8 GEMM with exact e4m3 products summed in fp64, scaled in fp64");
  }
  if (job.op_type == task::OpType::kMhaDecode) {
    auto dims = decode_dims(job);
    if (!dims) return dims.error();
    return std::string("decode attention in fp64 over each sequence's valid keys");
  }
  if (task::is_attention(job.op_type)) {
    bool backward = job.op_type == task::OpType::kMhaBwd;
    auto dims = attention_dims(job, backward);
    if (!dims) return dims.error();
    return std::string(backward ? "fp32 tiled attention backward"
                                : "fp32 tiled attention forward (online softmax)");
  }
  return util::make_error(fmt::format("no high-precision reference for op_type {}", job.op_type));
}

util::Expected<std::vector<DeviceBuffer>> compute_precise_reference(
    const worker::WorkerJob& job, std::span<const eval::gpu::DeviceTensor> inputs,
    cudaStream_t stream) {
  auto name = precise_reference_name(job);
  if (!name) return name.error();
  if (inputs.size() != job.inputs.size()) return util::make_error("reference: wrong inputs");
  auto outputs = fp32_outputs(job);
  if (!outputs) return outputs.error();
  std::vector<DeviceBuffer>& out = outputs.value();
  if (job.op_type == task::OpType::kGemm) {
    gemm_reference(data_of<__nv_bfloat16>(inputs[0]), data_of<__nv_bfloat16>(inputs[1]),
                   out[0].as<float>(), job.inputs[0].shape[0], job.inputs[1].shape[0],
                   job.inputs[0].shape[1], stream);
  } else if (job.op_type == task::OpType::kGemmFp8) {
    gemm_fp8_reference(data_of<__nv_fp8_e4m3>(inputs[0]), data_of<__nv_fp8_e4m3>(inputs[1]),
                       data_of<float>(inputs[2]), data_of<float>(inputs[3]), out[0].as<float>(),
                       job.inputs[0].shape[0], job.inputs[1].shape[0], job.inputs[0].shape[1],
                       stream);
  } else if (job.op_type == task::OpType::kMhaDecode) {
    decode_reference(data_of<__nv_bfloat16>(inputs[0]), data_of<__nv_bfloat16>(inputs[1]),
                     data_of<__nv_bfloat16>(inputs[2]), data_of<std::int32_t>(inputs[3]),
                     out[0].as<float>(), out[1].as<float>(), decode_dims(job).value(), stream);
  } else if (job.op_type == task::OpType::kMhaFwdLse) {
    AttentionDims dims = attention_dims(job, false).value();
    attention_forward_reference(
        data_of<__nv_bfloat16>(inputs[0]), data_of<__nv_bfloat16>(inputs[1]),
        data_of<__nv_bfloat16>(inputs[2]), out[0].as<float>(), out[1].as<float>(), dims, stream);
  } else {
    AttentionDims dims = attention_dims(job, true).value();
    attention_backward_reference(
        data_of<__nv_bfloat16>(inputs[0]), data_of<__nv_bfloat16>(inputs[1]),
        data_of<__nv_bfloat16>(inputs[2]), data_of<__nv_bfloat16>(inputs[3]),
        data_of<__nv_bfloat16>(inputs[4]), data_of<float>(inputs[5]), out[0].as<float>(),
        out[1].as<float>(), out[2].as<float>(), dims, stream);
  }
  return outputs;
}

}  // namespace ptxbench::eval::correctness::gpu
