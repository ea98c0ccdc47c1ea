// Shared pieces of the GPU tests: skipping without a GPU, host/device copies, CPU references.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ptxbench/eval/correctness/output_comparison.hpp"
#include "ptxbench/eval/worker/gpu/device_tensors.hpp"

namespace ptxbench::eval::gpu::testing {

inline bool have_gpu(std::string& why) {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    why = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device";
    return false;
  }
  return true;
}

#define PTXBENCH_REQUIRE_GPU()                                 \
  do {                                                         \
    std::string why_no_gpu;                                    \
    if (!::ptxbench::eval::gpu::testing::have_gpu(why_no_gpu)) \
      GTEST_SKIP() << "needs a GPU: " << why_no_gpu;           \
  } while (false)

// A tensor's elements as floats (bf16 and fp32 tensors).
inline std::vector<float> download(const DeviceTensor& t) {
  std::vector<float> out(static_cast<std::size_t>(t.elements()));
  if (t.desc().dtype == task::DType::kFloat32) {
    cudaMemcpy(out.data(), t.data(), t.bytes(), cudaMemcpyDeviceToHost);
    return out;
  }
  std::vector<std::uint16_t> bits(out.size());
  cudaMemcpy(bits.data(), t.data(), t.bytes(), cudaMemcpyDeviceToHost);
  for (std::size_t i = 0; i < bits.size(); ++i) out[i] = worker::bfloat16_to_float(bits[i]);
  return out;
}

inline void upload(const std::vector<float>& values, DeviceTensor& t) {
  if (t.desc().dtype == task::DType::kFloat32) {
    cudaMemcpy(t.data(), values.data(), t.bytes(), cudaMemcpyHostToDevice);
    return;
  }
  std::vector<std::uint16_t> bits(values.size());
  for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = worker::float_to_bfloat16(values[i]);
  cudaMemcpy(t.data(), bits.data(), t.bytes(), cudaMemcpyHostToDevice);
}

worker::TensorDesc bf16(std::string name, std::vector<std::int64_t> shape);
worker::TensorDesc fp32(std::string name, std::vector<std::int64_t> shape);

// Attention on the CPU in double, [B, H, S, D] row-major; LSE in natural log.
struct AttentionReference {
  std::vector<double> o, lse, dq, dk, dv;
};
AttentionReference attention_on_cpu(const std::vector<float>& q, const std::vector<float>& k,
                                    const std::vector<float>& v, const std::vector<float>& d_o,
                                    int bh, int s, int d, double scale, bool causal);

// Largest |x - y| over elements.
double max_abs_difference(const std::vector<float>& x, const std::vector<double>& y);

}  // namespace ptxbench::eval::gpu::testing
