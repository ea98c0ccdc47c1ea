// The trusted GPU building blocks against CPU references: random fill, hash, the comparison
// kernel (against worker::compare_on_cpu), and the baselines (cuBLASLt's NT layout, cuDNN's
// forward LSE convention and backward) on small shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "gpu_test_support.hpp"
#include "ptxbench/eval/correctness/gpu/baseline.hpp"
#include "ptxbench/eval/correctness/gpu/precise_reference.hpp"
#include "ptxbench/eval/correctness/gpu/tensor_kernels.hpp"
#include "ptxbench/eval/worker/gpu/gpu_timer.hpp"

namespace ptxbench::eval::gpu::testing {
namespace {

worker::WorkerJob job_with(std::vector<worker::TensorDesc> inputs,
                           std::vector<worker::TensorDesc> outputs) {
  worker::WorkerJob job;
  job.inputs = std::move(inputs);
  job.outputs = std::move(outputs);
  return job;
}

DeviceTensors tensors_of(const worker::WorkerJob& job) {
  auto t = DeviceTensors::allocate(job);
  EXPECT_TRUE(t.has_value());
  return std::move(t.value());
}

TEST(RandomFill, SameSeedSameBitsAndTheDistributionsLookRight) {
  PTXBENCH_REQUIRE_GPU();
  CudaStream stream;
  auto job = job_with({bf16("x", {1 << 20}), bf16("y", {1 << 20})}, {});
  auto tensors = tensors_of(job);
  auto& x = tensors.inputs()[0];
  auto& y = tensors.inputs()[1];
  for (auto distribution :
       {task::Distribution::kNormal, task::Distribution::kUniform, task::Distribution::kSpiky,
        task::Distribution::kLarge, task::Distribution::kNearTies}) {
    x.fill_random(distribution, 7, stream.get());
    y.fill_random(distribution, 7, stream.get());
    EXPECT_EQ(x.hash(stream.get()), y.hash(stream.get()));
    y.fill_random(distribution, 8, stream.get());
    EXPECT_NE(x.hash(stream.get()), y.hash(stream.get()));
    auto values = download(x);
    double mean = std::accumulate(values.begin(), values.end(), 0.0) / values.size();
    double sq = 0;
    for (float v : values) sq += double{v} * v;
    double stddev = std::sqrt(sq / values.size() - mean * mean);
    auto big =
        std::count_if(values.begin(), values.end(), [](float v) { return std::fabs(v) > 8; });
    double big_share = static_cast<double>(big) / values.size();
    switch (distribution) {
      case task::Distribution::kNormal:
        EXPECT_NEAR(mean, 0, 0.01);
        EXPECT_NEAR(stddev, 1, 0.01);
        EXPECT_EQ(big, 0);
        break;
      case task::Distribution::kUniform:
        EXPECT_NEAR(mean, 0, 0.01);
        EXPECT_NEAR(stddev, 1 / std::sqrt(3.0), 0.01);
        EXPECT_LE(*std::max_element(values.begin(), values.end()), 1.0f);
        EXPECT_GE(*std::min_element(values.begin(), values.end()), -1.0f);
        break;
      case task::Distribution::kSpiky:
        // About 0.1% of elements get a N(0, 100^2) spike; |spike| > 8 for ~94% of them.
        EXPECT_GT(big_share, 0.0006);
        EXPECT_LT(big_share, 0.0013);
        EXPECT_GT(stddev, 2.5);
        break;
      case task::Distribution::kLarge:
        EXPECT_NEAR(mean, 0, 10);
        EXPECT_NEAR(stddev, 1024, 15);
        break;
      case task::Distribution::kNearTies:
        // Multiples of 1/8 in [-2, 2]: many exact ties.
        for (float v : values) {
          EXPECT_EQ(v * 8, std::round(v * 8));
          EXPECT_LE(std::fabs(v), 2.0f);
        }
        break;
      case task::Distribution::kEqualScores:  // TensorSampler.EqualScoresRowsAreIdentical
        break;
    }
  }
}

// equal_scores: every row along the second-to-last axis is the same, so every score of a
// softmax row ties; different blocks and columns still differ.
TEST(TensorSampler, EqualScoresRowsAreIdentical) {
  PTXBENCH_REQUIRE_GPU();
  CudaStream stream;
  auto tensors = tensors_of(job_with({fp32("x", {3, 8, 64})}, {}));
  auto& x = tensors.inputs()[0];
  x.fill_random(task::Distribution::kEqualScores, 5, stream.get());
  auto values = download(x);
  ASSERT_EQ(values.size(), 3u * 8 * 64);
  for (int block = 0; block < 3; ++block) {
    for (int row = 1; row < 8; ++row) {
      for (int col = 0; col < 64; ++col) {
        EXPECT_EQ(values[(block * 8 + row) * 64 + col], values[block * 8 * 64 + col]);
      }
    }
  }
  EXPECT_NE(values[0], values[1]);
  EXPECT_NE(values[0], values[8 * 64]);
}

TEST(TensorHash, SeesOneChangedBit) {
  PTXBENCH_REQUIRE_GPU();
  CudaStream stream;
  auto tensors = tensors_of(job_with({bf16("x", {1001})}, {}));
  auto& x = tensors.inputs()[0];
  x.fill_random(task::Distribution::kNormal, 1, stream.get());
  std::uint64_t before = x.hash(stream.get());
  std::uint16_t word = 0;
  cudaMemcpy(&word, static_cast<char*>(x.data()) + 2 * 777, 2, cudaMemcpyDeviceToHost);
  word ^= 1;
  cudaMemcpy(static_cast<char*>(x.data()) + 2 * 777, &word, 2, cudaMemcpyHostToDevice);
  EXPECT_NE(x.hash(stream.get()), before);
}

TEST(Poison, OutputsStartAsNan) {
  PTXBENCH_REQUIRE_GPU();
  CudaStream stream;
  auto tensors = tensors_of(job_with({}, {bf16("o", {100}), fp32("l", {10})}));
  tensors.poison_outputs(stream.get());
  cudaStreamSynchronize(stream.get());
  for (const auto& out : tensors.outputs()) {
    auto values = download(out);
    EXPECT_TRUE(std::all_of(values.begin(), values.end(), [](float v) { return std::isnan(v); }));
  }
}

TEST(CompareKernel, AgreesWithTheCpuRule) {
  PTXBENCH_REQUIRE_GPU();
  CudaStream stream;
  for (auto dtype : {task::DType::kFloat32, task::DType::kBFloat16}) {
    worker::TensorDesc desc{.name = "c", .dtype = dtype, .shape = {50000}};
    auto tensors = tensors_of(job_with({desc, desc}, {}));
    auto& candidate = tensors.inputs()[0];
    auto& reference = tensors.inputs()[1];
    reference.fill_random(task::Distribution::kSpiky, 3, stream.get());
    cudaStreamSynchronize(stream.get());
    std::vector<float> ref = download(reference);
    ref[123] = 1.0f;  // not a spike: +0.5 is then far outside both tolerances
    upload(ref, reference);
    std::vector<float> cand = ref;
    cand[123] = 1.5f;
    cand[124] = ref[124] * 1.001f;  // within rtol
    cand[40000] = std::numeric_limits<float>::quiet_NaN();
    cand[40001] = std::numeric_limits<float>::infinity();
    upload(cand, candidate);
    cand = download(candidate);  // the values as stored (bf16 rounding)
    auto gpu =
        compare_tensors(candidate.data(), reference.data(), dtype, 50000, 1e-2, 1e-2, stream.get());
    auto cpu = worker::compare_on_cpu(cand, ref, 1e-2, 1e-2);
    EXPECT_EQ(gpu.mismatches, cpu.mismatches);
    EXPECT_EQ(gpu.nan_count, 1);
    EXPECT_EQ(gpu.inf_count, 1);
    EXPECT_EQ(gpu.first_bad_index, cpu.first_bad_index);
    EXPECT_EQ(gpu.first_bad_index, 123);
    EXPECT_DOUBLE_EQ(gpu.max_abs_error, cpu.max_abs_error);
    EXPECT_DOUBLE_EQ(gpu.max_rel_error, cpu.max_rel_error);
  }
}

TEST(CublasLtBaseline, ComputesATimesBTransposed) {
  PTXBENCH_REQUIRE_GPU();
  CudaStream stream;
  const int m = 70, n = 96, k = 136;
  auto job = job_with({bf16("A", {m, k}), bf16("B", {n, k})}, {bf16("C", {m, n})});
  job.baseline = ptxbench::task::Baseline::kCublasLtGemmBf16Nt;
  job.op_type = ptxbench::task::OpType::kGemm;
  auto baseline = make_baseline(job, stream.get());
  ASSERT_TRUE(baseline.has_value()) << baseline.error().message;
  auto tensors = tensors_of(job);
  tensors.fill_random_inputs(task::Distribution::kNormal, 5, stream.get());
  baseline.value()->run(tensors.inputs(), tensors.outputs(), stream.get());
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  auto a = download(tensors.inputs()[0]), b = download(tensors.inputs()[1]);
  auto c = download(tensors.outputs()[0]);
  double worst = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int kk = 0; kk < k; ++kk) acc += double{a[i * k + kk]} * b[j * k + kk];
      worst = std::max(worst, std::fabs(acc - c[i * n + j]) / (std::fabs(acc) + 1));
    }
  }
  EXPECT_LT(worst, 1e-2) << baseline.value()->describe();
}

worker::TensorDesc typed(std::string name, task::DType dtype, std::vector<std::int64_t> shape) {
  return worker::TensorDesc{.name = std::move(name), .dtype = dtype, .shape = std::move(shape)};
}

// The largest |library − reference| / (|reference| + 1) over one output (bf16 or fp32 output,
// fp32 reference).
double worst_relative(const DeviceTensor& library, const DeviceBuffer& reference) {
  const auto out = download(library);
  std::vector<float> ref(out.size());
  EXPECT_EQ(
      cudaMemcpy(ref.data(), reference.data(), ref.size() * sizeof(float), cudaMemcpyDeviceToHost),
      cudaSuccess);
  double worst = 0;
  for (std::size_t i = 0; i < out.size(); ++i)
    worst = std::max(worst, std::fabs(double{out[i]} - ref[i]) / (std::fabs(double{ref[i]}) + 1));
  return worst;
}

// FP8 with per-tensor scales: cuBLASLt against the fp64 reference on e4m3 inputs with drawn
// (normal, so any sign) scales, M ragged.
TEST(CublasLtBaseline, Fp8WithPerTensorScalesMatchesTheReference) {
  PTXBENCH_REQUIRE_GPU();
  CudaStream stream;
  const int m = 70, n = 96, k = 1024;
  auto job = job_with(
      {typed("A", task::DType::kFloat8E4M3, {m, k}), typed("B", task::DType::kFloat8E4M3, {n, k}),
       typed("SCALE_A", task::DType::kFloat32, {}), typed("SCALE_B", task::DType::kFloat32, {})},
      {bf16("C", {m, n})});
  job.baseline = ptxbench::task::Baseline::kCublasLtGemmFp8Nt;
  job.op_type = ptxbench::task::OpType::kGemmFp8;
  auto baseline = make_baseline(job, stream.get());
  ASSERT_TRUE(baseline.has_value()) << baseline.error().message;
  auto tensors = tensors_of(job);
  tensors.draw_inputs(job, 5, stream.get());
  baseline.value()->run(tensors.inputs(), tensors.outputs(), stream.get());
  auto reference = correctness::gpu::compute_precise_reference(job, tensors.inputs(), stream.get());
  ASSERT_TRUE(reference.has_value()) << reference.error().message;
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  // |C| ~ |sa·sb|·√K ≈ 32: a bf16 rounding of C is ~2^-8 relative.
  EXPECT_LT(worst_relative(tensors.outputs()[0], reference.value()[0]), 1e-2)
      << baseline.value()->describe();
}

// Decode: cuDNN with the padding mask over drawn lengths (one full, the others in [1, S]) and
// grouped heads, against the fp64 reference; a ragged capacity.
TEST(CudnnDecodeBaseline, RaggedLengthsMatchTheReference) {
  PTXBENCH_REQUIRE_GPU();
  CudaStream stream;
  const int b = 4, h = 8, hkv = 2, s = 300, d = 128;
  auto job = job_with({bf16("Q", {b, h, d}), bf16("K", {b, hkv, s, d}), bf16("V", {b, hkv, s, d}),
                       typed("KV_LEN", task::DType::kInt32, {b})},
                      {bf16("O", {b, h, d}), fp32("LSE", {b, h})});
  job.baseline = ptxbench::task::Baseline::kCudnnSdpaDecode;
  job.op_type = ptxbench::task::OpType::kMhaDecode;
  job.parameters = {{"scale", 1.0 / std::sqrt(double(d))}};
  auto baseline = make_baseline(job, stream.get());
  ASSERT_TRUE(baseline.has_value()) << baseline.error().message;
  auto tensors = tensors_of(job);
  tensors.draw_inputs(job, 7, stream.get());
  baseline.value()->run(tensors.inputs(), tensors.outputs(), stream.get());
  auto reference = correctness::gpu::compute_precise_reference(job, tensors.inputs(), stream.get());
  ASSERT_TRUE(reference.has_value()) << reference.error().message;
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  EXPECT_LT(worst_relative(tensors.outputs()[0], reference.value()[0]), 2e-2)
      << baseline.value()->describe();
  EXPECT_LT(worst_relative(tensors.outputs()[1], reference.value()[1]), 1e-3);  // natural log
}

class CudnnBaseline : public ::testing::TestWithParam<bool> {};

TEST_P(CudnnBaseline, ForwardAndBackwardMatchTheCpu) {
  PTXBENCH_REQUIRE_GPU();
  const bool causal = GetParam();
  CudaStream stream;
  const int b = 1, h = 2, s = 64, d = 64;
  const double scale = 1.0 / 8.0;
  auto q = bf16("Q", {b, h, s, d});
  auto forward = job_with({q, bf16("K", {b, h, s, d}), bf16("V", {b, h, s, d})},
                          {bf16("O", {b, h, s, d}), fp32("LSE", {b, h, s})});
  forward.baseline = ptxbench::task::Baseline::kCudnnSdpaFwd;
  forward.op_type = ptxbench::task::OpType::kMhaFwdLse;
  forward.parameters = {{"causal", causal ? 1 : 0}, {"scale", scale}};
  auto fwd = make_baseline(forward, stream.get());
  ASSERT_TRUE(fwd.has_value()) << fwd.error().message;
  auto ft = tensors_of(forward);
  ft.fill_random_inputs(task::Distribution::kNormal, 11, stream.get());
  fwd.value()->run(ft.inputs(), ft.outputs(), stream.get());
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  auto qv = download(ft.inputs()[0]), kv = download(ft.inputs()[1]), vv = download(ft.inputs()[2]);

  auto backward =
      job_with({q, bf16("K", {b, h, s, d}), bf16("V", {b, h, s, d}), bf16("O", {b, h, s, d}),
                bf16("dO", {b, h, s, d}), fp32("LSE", {b, h, s})},
               {bf16("dQ", {b, h, s, d}), bf16("dK", {b, h, s, d}), bf16("dV", {b, h, s, d})});
  backward.baseline = ptxbench::task::Baseline::kCudnnSdpaBwd;
  backward.op_type = ptxbench::task::OpType::kMhaBwd;
  backward.parameters = forward.parameters;
  auto bwd = make_baseline(backward, stream.get());
  ASSERT_TRUE(bwd.has_value()) << bwd.error().message;
  auto bt = make_trial_tensors(backward, 11, stream.get(), bwd.value().get());
  ASSERT_TRUE(bt.has_value());
  bwd.value()->run(bt->inputs(), bt->outputs(), stream.get());
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);

  auto ref = attention_on_cpu(qv, kv, vv, {}, b * h, s, d, scale, causal);
  EXPECT_LT(max_abs_difference(download(ft.outputs()[0]), ref.o), 2e-2);
  EXPECT_LT(max_abs_difference(download(ft.outputs()[1]), ref.lse), 1e-3);  // natural log

  // Backward: derived inputs O and LSE come from the forward of the same Q, K, V.
  auto bq = download(bt->inputs()[0]), bk = download(bt->inputs()[1]),
       bv = download(bt->inputs()[2]);
  auto b_do = download(bt->inputs()[4]);
  auto bref = attention_on_cpu(bq, bk, bv, b_do, b * h, s, d, scale, causal);
  EXPECT_LT(max_abs_difference(download(bt->inputs()[3]), bref.o), 2e-2);
  EXPECT_LT(max_abs_difference(download(bt->inputs()[5]), bref.lse), 1e-3);
  EXPECT_LT(max_abs_difference(download(bt->outputs()[0]), bref.dq), 3e-2);
  EXPECT_LT(max_abs_difference(download(bt->outputs()[1]), bref.dk), 3e-2);
  EXPECT_LT(max_abs_difference(download(bt->outputs()[2]), bref.dv), 3e-2);
}

INSTANTIATE_TEST_SUITE_P(Masks, CudnnBaseline, ::testing::Values(false, true),
                         [](const auto& param_info) {
                           return param_info.param ? "causal" : "full";
                         });

}  // namespace
}  // namespace ptxbench::eval::gpu::testing
