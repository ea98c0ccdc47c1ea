// Shared pieces of the correctness stage's GPU tests: skipping without a GPU, host copies of
// device data, and CPU references in double for small shapes.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ptxbench/eval/worker/gpu/device_tensors.hpp"

namespace ptxbench::eval::correctness::test {

bool have_gpu(std::string& why);

#define PTXBENCH_CORRECTNESS_REQUIRE_GPU()                          \
  do {                                                              \
    std::string why_no_gpu;                                         \
    if (!::ptxbench::eval::correctness::test::have_gpu(why_no_gpu)) \
      GTEST_SKIP() << "needs a GPU: " << why_no_gpu;                \
  } while (false)

// Elements of a bf16 or fp32 tensor, or of an fp32 device array, as floats.
std::vector<float> download(const eval::gpu::DeviceTensor& tensor);
std::vector<float> download_floats(const void* device, std::int64_t elements);
// Writes floats into a bf16 or fp32 tensor (rounding to nearest even for bf16).
void upload(const std::vector<float>& values, eval::gpu::DeviceTensor& tensor);

// Attention in double on the CPU over [heads, S, D] (queries = keys, one kv head per head).
struct CpuAttention {
  std::vector<double> o, lse, dq, dk, dv;
};
CpuAttention attention_forward_on_cpu(const std::vector<float>& q, const std::vector<float>& k,
                                      const std::vector<float>& v, int heads, int length, int dim,
                                      double scale, bool causal);
// Backward from the given O (as the operator takes it) and LSE.
void attention_backward_on_cpu(const std::vector<float>& q, const std::vector<float>& k,
                               const std::vector<float>& v, const std::vector<float>& o,
                               const std::vector<float>& d_o, const std::vector<float>& lse,
                               int heads, int length, int dim, double scale, bool causal,
                               CpuAttention& out);

// max_i |x_i - y_i| / (max_i |y_i| + tiny): the error relative to the tensor's scale.
double scaled_max_error(const std::vector<float>& x, const std::vector<double>& y);

}  // namespace ptxbench::eval::correctness::test
