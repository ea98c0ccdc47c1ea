// The high-precision references against double-precision CPU code on small shapes with partial
// tiles (S = 130: two full 64-row tiles and a partial one), and the GPU accuracy reduction
// against its CPU implementation.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ptxbench/eval/correctness/gpu/accuracy_reduction.hpp"
#include "ptxbench/eval/correctness/gpu/precise_reference.hpp"
#include "ptxbench/eval/worker/gpu/gpu_timer.hpp"
#include "reference_checks.hpp"

namespace ptxbench::eval::correctness::test {
namespace {

using eval::gpu::CudaStream;
using eval::gpu::DeviceTensors;
using worker::TensorDesc;

TensorDesc tensor(std::string name, task::DType dtype, std::vector<std::int64_t> shape) {
  return TensorDesc{.name = std::move(name), .dtype = dtype, .shape = std::move(shape), .axes = {}};
}

DeviceTensors allocate(const worker::WorkerJob& job) {
  auto tensors = DeviceTensors::allocate(job);
  EXPECT_TRUE(tensors.has_value());
  return std::move(tensors.value());
}

TEST(GemmReference, MatchesDoublePrecisionOnTheCpu) {
  PTXBENCH_CORRECTNESS_REQUIRE_GPU();
  const std::int64_t m = 70, n = 130, k = 100;
  worker::WorkerJob job;
  job.op_type = ptxbench::task::OpType::kGemm;
  job.inputs = {tensor("A", task::DType::kBFloat16, {m, k}),
                tensor("B", task::DType::kBFloat16, {n, k})};
  job.outputs = {tensor("C", task::DType::kBFloat16, {m, n})};
  CudaStream stream;
  DeviceTensors tensors = allocate(job);
  tensors.fill_random_inputs(task::Distribution::kSpiky, 11, stream.get());
  auto reference = gpu::compute_precise_reference(job, tensors.inputs(), stream.get());
  ASSERT_TRUE(reference.has_value()) << reference.error().message;
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  auto a = download(tensors.inputs()[0]);
  auto b = download(tensors.inputs()[1]);
  auto c = download_floats(reference.value()[0].data(), m * n);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::int64_t kk = 0; kk < k; ++kk) sum += double{a[i * k + kk]} * b[j * k + kk];
      // fp64 sums of exact products, rounded once to fp32
      ASSERT_FLOAT_EQ(c[i * n + j], static_cast<float>(sum)) << "C[" << i << ", " << j << "]";
    }
  }
}

// e4m3 bits as a float (bias 7, no infinities, S.1111.111 is NaN).
float e4m3_to_float(std::uint8_t bits) {
  const int sign = bits >> 7, exponent = (bits >> 3) & 0xF, mantissa = bits & 0x7;
  if (exponent == 0xF && mantissa == 0x7) return NAN;
  const float magnitude = exponent == 0 ? std::ldexp(mantissa / 8.0f, -6)
                                        : std::ldexp(1.0f + mantissa / 8.0f, exponent - 7);
  return sign ? -magnitude : magnitude;
}

template <class T>
std::vector<T> download_raw(const eval::gpu::DeviceTensor& t) {
  std::vector<T> out(static_cast<std::size_t>(t.elements()));
  EXPECT_EQ(cudaMemcpy(out.data(), t.data(), t.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
  return out;
}

// FP8: exact e4m3 products summed in fp64, times both per-tensor scales, rounded once.
TEST(GemmReference, Fp8MatchesDoublePrecisionOnTheCpu) {
  PTXBENCH_CORRECTNESS_REQUIRE_GPU();
  const std::int64_t m = 70, n = 130, k = 160;
  worker::WorkerJob job;
  job.op_type = ptxbench::task::OpType::kGemmFp8;
  job.inputs = {
      tensor("A", task::DType::kFloat8E4M3, {m, k}), tensor("B", task::DType::kFloat8E4M3, {n, k}),
      tensor("SCALE_A", task::DType::kFloat32, {}), tensor("SCALE_B", task::DType::kFloat32, {})};
  job.outputs = {tensor("C", task::DType::kBFloat16, {m, n})};
  CudaStream stream;
  DeviceTensors tensors = allocate(job);
  tensors.fill_random_inputs(task::Distribution::kSpiky, 12, stream.get());
  auto reference = gpu::compute_precise_reference(job, tensors.inputs(), stream.get());
  ASSERT_TRUE(reference.has_value()) << reference.error().message;
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  auto a = download_raw<std::uint8_t>(tensors.inputs()[0]);
  auto b = download_raw<std::uint8_t>(tensors.inputs()[1]);
  const double scale = double{download(tensors.inputs()[2])[0]} * download(tensors.inputs()[3])[0];
  auto c = download_floats(reference.value()[0].data(), m * n);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::int64_t kk = 0; kk < k; ++kk)
        sum += double{e4m3_to_float(a[i * k + kk])} * e4m3_to_float(b[j * k + kk]);
      ASSERT_FLOAT_EQ(c[i * n + j], static_cast<float>(scale * sum))
          << "C[" << i << ", " << j << "]";
    }
  }
}

// Decode: lengths drawn by the task's rule (one full, the others anywhere in [1, S]), grouped
// heads; every query over its own sequence's valid keys, against double precision on the CPU.
TEST(DecodeReference, MatchesDoublePrecisionOnTheCpuWithDrawnLengths) {
  PTXBENCH_CORRECTNESS_REQUIRE_GPU();
  const std::int64_t batch = 3, heads = 8, kv_heads = 2, capacity = 130, dim = 128;
  const double scale = 1.0 / std::sqrt(double(dim));
  worker::WorkerJob job;
  job.op_type = ptxbench::task::OpType::kMhaDecode;
  job.parameters = {{"scale", scale}};
  job.inputs = {tensor("Q", task::DType::kBFloat16, {batch, heads, dim}),
                tensor("K", task::DType::kBFloat16, {batch, kv_heads, capacity, dim}),
                tensor("V", task::DType::kBFloat16, {batch, kv_heads, capacity, dim}),
                tensor("KV_LEN", task::DType::kInt32, {batch})};
  job.outputs = {tensor("O", task::DType::kBFloat16, {batch, heads, dim}),
                 tensor("LSE", task::DType::kFloat32, {batch, heads})};
  CudaStream stream;
  DeviceTensors tensors = allocate(job);
  tensors.draw_inputs(job, 13, stream.get());
  auto reference = gpu::compute_precise_reference(job, tensors.inputs(), stream.get());
  ASSERT_TRUE(reference.has_value()) << reference.error().message;
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  auto q = download(tensors.inputs()[0]), k = download(tensors.inputs()[1]);
  auto v = download(tensors.inputs()[2]);
  auto lengths = download_raw<std::int32_t>(tensors.inputs()[3]);
  EXPECT_EQ(lengths[0], capacity);
  auto o = download_floats(reference.value()[0].data(), batch * heads * dim);
  auto lse = download_floats(reference.value()[1].data(), batch * heads);
  for (std::int64_t b = 0; b < batch; ++b) {
    ASSERT_GE(lengths[b], 1);
    ASSERT_LE(lengths[b], capacity);
    for (std::int64_t h = 0; h < heads; ++h) {
      const std::int64_t row = b * heads + h, g = b * kv_heads + h / (heads / kv_heads);
      std::vector<double> scores(static_cast<std::size_t>(lengths[b]));
      double max = -INFINITY;
      for (std::int64_t j = 0; j < lengths[b]; ++j) {
        double dot = 0;
        for (std::int64_t d = 0; d < dim; ++d)
          dot += double{q[row * dim + d]} * k[(g * capacity + j) * dim + d];
        scores[j] = scale * dot;
        max = std::max(max, scores[j]);
      }
      double sum = 0;
      for (double& score : scores) sum += (score = std::exp(score - max));
      EXPECT_NEAR(lse[row], max + std::log(sum), 1e-5) << "LSE[" << b << ", " << h << "]";
      for (std::int64_t d = 0; d < dim; ++d) {
        double out = 0;
        for (std::int64_t j = 0; j < lengths[b]; ++j)
          out += scores[j] * v[(g * capacity + j) * dim + d];
        EXPECT_NEAR(o[row * dim + d], out / sum, 1e-5)
            << "O[" << b << ", " << h << ", " << d << "]";
      }
    }
  }
}

struct AttentionCase {
  int dim;
  bool causal;
};

class AttentionReference : public ::testing::TestWithParam<AttentionCase> {};

worker::WorkerJob attention_job(bool backward, int heads, int length, int dim, bool causal) {
  std::vector<std::int64_t> bhsd{1, heads, length, dim}, bhs{1, heads, length};
  worker::WorkerJob job;
  job.op_type = backward ? ptxbench::task::OpType::kMhaBwd : ptxbench::task::OpType::kMhaFwdLse;
  job.parameters = {{"causal", causal ? 1.0 : 0.0}, {"scale", 1.0 / std::sqrt(double(dim))}};
  auto b16 = [&](const char* name) { return tensor(name, task::DType::kBFloat16, bhsd); };
  if (backward) {
    job.inputs = {b16("Q"), b16("K"),  b16("V"),
                  b16("O"), b16("dO"), tensor("LSE", task::DType::kFloat32, bhs)};
    job.outputs = {b16("dQ"), b16("dK"), b16("dV")};
  } else {
    job.inputs = {b16("Q"), b16("K"), b16("V")};
    job.outputs = {b16("O"), tensor("LSE", task::DType::kFloat32, bhs)};
  }
  return job;
}

TEST_P(AttentionReference, ForwardMatchesDoublePrecisionOnTheCpu) {
  PTXBENCH_CORRECTNESS_REQUIRE_GPU();
  const auto [dim, causal] = GetParam();
  const int heads = 2, length = 130;
  worker::WorkerJob job = attention_job(false, heads, length, dim, causal);
  CudaStream stream;
  DeviceTensors tensors = allocate(job);
  tensors.fill_random_inputs(task::Distribution::kNormal, 5, stream.get());
  auto reference = gpu::compute_precise_reference(job, tensors.inputs(), stream.get());
  ASSERT_TRUE(reference.has_value()) << reference.error().message;
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  CpuAttention cpu = attention_forward_on_cpu(
      download(tensors.inputs()[0]), download(tensors.inputs()[1]), download(tensors.inputs()[2]),
      heads, length, dim, 1.0 / std::sqrt(double(dim)), causal);
  auto o = download_floats(reference.value()[0].data(), std::int64_t{heads} * length * dim);
  auto lse = download_floats(reference.value()[1].data(), std::int64_t{heads} * length);
  EXPECT_LT(scaled_max_error(o, cpu.o), 1e-5);
  EXPECT_LT(scaled_max_error(lse, cpu.lse), 1e-6);
}

TEST_P(AttentionReference, BackwardMatchesDoublePrecisionOnTheCpu) {
  PTXBENCH_CORRECTNESS_REQUIRE_GPU();
  const auto [dim, causal] = GetParam();
  if (dim > 128) GTEST_SKIP() << "no backward task has a head dimension above 128";
  const int heads = 2, length = 130;
  const double scale = 1.0 / std::sqrt(double(dim));
  worker::WorkerJob job = attention_job(true, heads, length, dim, causal);
  CudaStream stream;
  DeviceTensors tensors = allocate(job);
  tensors.fill_random_inputs(task::Distribution::kNormal, 6, stream.get());
  auto& in = tensors.inputs();
  auto q = download(in[0]), k = download(in[1]), v = download(in[2]), d_o = download(in[4]);
  // O and LSE as the operator receives them: the forward's, O rounded to bf16.
  CpuAttention forward = attention_forward_on_cpu(q, k, v, heads, length, dim, scale, causal);
  std::vector<float> o(forward.o.begin(), forward.o.end());
  std::vector<float> lse(forward.lse.begin(), forward.lse.end());
  upload(o, in[3]);
  upload(lse, in[5]);
  o = download(in[3]);
  auto reference = gpu::compute_precise_reference(job, in, stream.get());
  ASSERT_TRUE(reference.has_value()) << reference.error().message;
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  CpuAttention cpu;
  attention_backward_on_cpu(q, k, v, o, d_o, lse, heads, length, dim, scale, causal, cpu);
  const std::int64_t n = std::int64_t{heads} * length * dim;
  EXPECT_LT(scaled_max_error(download_floats(reference.value()[0].data(), n), cpu.dq), 1e-5);
  EXPECT_LT(scaled_max_error(download_floats(reference.value()[1].data(), n), cpu.dk), 1e-5);
  EXPECT_LT(scaled_max_error(download_floats(reference.value()[2].data(), n), cpu.dv), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(HeadDimsAndMasks, AttentionReference,
                         ::testing::Values(AttentionCase{64, false}, AttentionCase{64, true},
                                           AttentionCase{96, true}, AttentionCase{128, false},
                                           AttentionCase{128, true}, AttentionCase{256, false},
                                           AttentionCase{256, true}),
                         [](const auto& param_info) {
                           return "D" + std::to_string(param_info.param.dim) +
                                  (param_info.param.causal ? "_causal" : "");
                         });

TEST(AccuracyReduction, MatchesTheCpuImplementation) {
  PTXBENCH_CORRECTNESS_REQUIRE_GPU();
  const std::int64_t n = 1 << 20;
  worker::WorkerJob job;
  job.inputs = {tensor("candidate", task::DType::kBFloat16, {n}),
                tensor("library", task::DType::kBFloat16, {n}),
                tensor("reference", task::DType::kFloat32, {n})};
  DeviceTensors tensors = allocate(job);
  std::mt19937 random(3);
  std::normal_distribution<float> normal(0, 1);
  std::vector<float> reference(n), library(n), candidate(n);
  for (std::int64_t i = 0; i < n; ++i) {
    reference[i] = normal(random) * (i % 1000 == 0 ? 100.0f : 1.0f);
    library[i] = reference[i] + 0.01f * normal(random);
    candidate[i] = reference[i] + (i % 4099 == 7 ? 1.0f : 0.005f * normal(random));
  }
  candidate[12345] = NAN;
  upload(candidate, tensors.inputs()[0]);
  upload(library, tensors.inputs()[1]);
  upload(reference, tensors.inputs()[2]);
  // The CPU pass sees the values as stored: bf16 for candidate and library.
  candidate = download(tensors.inputs()[0]);
  library = download(tensors.inputs()[1]);
  ElementBudget budget;
  AccuracyTotals cpu = accumulate_on_cpu(candidate, library, reference, budget);
  CudaStream stream;
  AccuracyTotals gpu = gpu::reduce_accuracy(tensors.inputs()[0].data(), tensors.inputs()[1].data(),
                                            static_cast<const float*>(tensors.inputs()[2].data()),
                                            task::DType::kBFloat16, n, budget, stream.get());
  EXPECT_EQ(gpu.elements, cpu.elements);
  EXPECT_EQ(gpu.compared, cpu.compared);
  EXPECT_EQ(gpu.candidate_non_finite, 1);
  EXPECT_EQ(gpu.candidate_duels_lost, cpu.candidate_duels_lost);
  EXPECT_GT(cpu.candidate_duels_lost, 100);
  EXPECT_EQ(gpu.library_duels_lost, cpu.library_duels_lost);
  EXPECT_EQ(gpu.first_lost_index, cpu.first_lost_index);
  EXPECT_DOUBLE_EQ(gpu.candidate.max_abs, cpu.candidate.max_abs);
  EXPECT_DOUBLE_EQ(gpu.reference.max_abs, cpu.reference.max_abs);
  EXPECT_NEAR(gpu.candidate.sum_abs, cpu.candidate.sum_abs, 1e-9 * cpu.candidate.sum_abs);
  EXPECT_NEAR(gpu.library.sum_squares, cpu.library.sum_squares, 1e-9 * cpu.library.sum_squares);
  EXPECT_NEAR(gpu.reference.sum_squares, cpu.reference.sum_squares,
              1e-9 * cpu.reference.sum_squares);
}

}  // namespace
}  // namespace ptxbench::eval::correctness::test
