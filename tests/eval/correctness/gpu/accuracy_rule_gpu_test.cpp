// The two correctness rules decide on kernels whose numerics are known: correct kernels that
// round differently from the library pass "as accurate as the library"; kernels with real
// numerical bugs fail it on the workloads meant to catch them (long sequences, spiky inputs);
// the d256 near-tie workload gets a verdict with its figures. Each case runs the real task's
// workload (batch and heads reduced where noted) against cuBLASLt / cuDNN and the
// high-precision reference, and prints both rules' figures.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>

#include "numerical_variants.hpp"
#include "ptxbench/eval/correctness/accuracy_rule.hpp"
#include "ptxbench/eval/correctness/gpu/accuracy_reduction.hpp"
#include "ptxbench/eval/correctness/gpu/baseline.hpp"
#include "ptxbench/eval/correctness/gpu/precise_reference.hpp"
#include "ptxbench/eval/correctness/gpu/tensor_kernels.hpp"
#include "ptxbench/eval/worker/gpu/gpu_timer.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "reference_checks.hpp"

namespace ptxbench::eval::correctness::test {
namespace {

using eval::gpu::DeviceBuffer;
using eval::gpu::DeviceTensor;

struct OutputVerdict {
  std::string name;
  bool matches_library = false;  // the original element rule against the library's output
  worker::ComparisonTotals original;
  AccuracyFigures accuracy;  // "as accurate as the library"
};

using Candidate = std::function<void(std::span<DeviceTensor> inputs,
                                     std::vector<DeviceBuffer>& outputs, cudaStream_t stream)>;

task::Task load_task(const std::string& family, const std::string& name, std::int64_t batch = 0,
                     std::int64_t heads = 0) {
  auto loaded = task::load_task_file(task::default_tasks_dir() / family / (name + ".json"));
  if (!loaded) throw std::runtime_error(loaded.error().message);
  for (task::Axis& axis : loaded->axes) {
    if (axis.name == "B" && batch > 0) axis.value = batch;
    if (axis.name == "H" && heads > 0) axis.value = heads;
  }
  return std::move(loaded.value());
}

const task::Workload& workload(const task::Task& task, const std::string& name) {
  for (const auto& w : task.workloads) {
    if (w.name == name) return w;
  }
  throw std::runtime_error("no workload " + name);
}

gpu::AttentionDims dims_of(const worker::WorkerJob& job) {
  const auto& q = job.inputs[0].shape;
  const auto& k = job.inputs[1].shape;
  auto causal = job.parameters.find("causal");
  return gpu::AttentionDims{.batch = q[0],
                            .q_heads = q[1],
                            .kv_heads = k[1],
                            .q_len = q[2],
                            .kv_len = k[2],
                            .head_dim = static_cast<int>(q[3]),
                            .causal = causal != job.parameters.end() && causal->second != 0,
                            .scale = static_cast<float>(job.parameters.at("scale"))};
}

// One trial of `workload`: library, high-precision reference and candidate on the same inputs,
// both rules applied to every output.
std::vector<OutputVerdict> judge_trial(const task::Task& task, const std::string& workload_name,
                                       const std::string& label, const Candidate& candidate) {
  worker::WorkerJob job = worker::make_job(task, workload(task, workload_name));
  eval::gpu::CudaStream stream;
  auto baseline = eval::gpu::make_baseline(job, stream.get());
  if (!baseline) throw std::runtime_error(baseline.error().message);
  auto tensors = eval::gpu::make_trial_tensors(job, worker::trial_seed(job.seed, 0), stream.get(),
                                               baseline.value().get());
  if (!tensors) throw std::runtime_error(tensors.error().message);
  baseline.value()->run(tensors->inputs(), tensors->outputs(), stream.get());
  auto reference = gpu::compute_precise_reference(job, tensors->inputs(), stream.get());
  if (!reference) throw std::runtime_error(reference.error().message);
  std::vector<DeviceBuffer> outputs;
  for (const auto& desc : job.outputs) outputs.emplace_back(desc.bytes());
  candidate(tensors->inputs(), outputs, stream.get());
  EXPECT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  const ElementBudget budget{
      .factor = kLibraryErrorFactor, .atol = job.tolerance.atol, .rtol = job.tolerance.rtol};
  std::vector<OutputVerdict> verdicts;
  for (std::size_t i = 0; i < job.outputs.size(); ++i) {
    const auto& desc = job.outputs[i];
    const void* library = tensors->outputs()[i].data();
    OutputVerdict v;
    v.name = desc.name;
    v.original = eval::gpu::compare_tensors(outputs[i].data(), library, desc.dtype, desc.elements(),
                                            job.tolerance.atol, job.tolerance.rtol, stream.get());
    v.matches_library = worker::make_output_check(desc.name, v.original, job.tolerance).passed;
    v.accuracy = judge_accuracy(
        gpu::reduce_accuracy(outputs[i].data(), library, reference.value()[i].as<float>(),
                             desc.dtype, desc.elements(), budget, stream.get()),
        desc.dtype);
    std::printf(
        "[%s | %s %s] %s: matches the library: %s (%lld of %lld elements off, max abs %.4g); "
        "as accurate as the library: %s — %s%s%s\n",
        label.c_str(), task.name.c_str(), workload_name.c_str(), desc.name.c_str(),
        v.matches_library ? "yes" : "no", static_cast<long long>(v.original.mismatches),
        static_cast<long long>(v.original.elements), v.original.max_abs_error,
        v.accuracy.passed ? "yes" : "no", accuracy_summary(v.accuracy).c_str(),
        v.accuracy.passed ? "" : "; fails: ", accuracy_failure(v.accuracy).c_str());
    verdicts.push_back(std::move(v));
  }
  return verdicts;
}

Candidate forward(ForwardVariant variant, const worker::WorkerJob& job) {
  gpu::AttentionDims dims = dims_of(job);
  return [variant, dims](std::span<DeviceTensor> in, std::vector<DeviceBuffer>& out,
                         cudaStream_t stream) {
    run_forward(variant, static_cast<const __nv_bfloat16*>(in[0].data()),
                static_cast<const __nv_bfloat16*>(in[1].data()),
                static_cast<const __nv_bfloat16*>(in[2].data()), out[0].as<__nv_bfloat16>(),
                out[1].as<float>(), dims, stream);
  };
}

Candidate backward(BackwardVariant variant, const worker::WorkerJob& job) {
  gpu::AttentionDims dims = dims_of(job);
  return [variant, dims](std::span<DeviceTensor> in, std::vector<DeviceBuffer>& out,
                         cudaStream_t stream) {
    auto bf = [&](std::size_t i) { return static_cast<const __nv_bfloat16*>(in[i].data()); };
    run_backward(variant, bf(0), bf(1), bf(2), bf(3), bf(4),
                 static_cast<const float*>(in[5].data()), out[0].as<__nv_bfloat16>(),
                 out[1].as<__nv_bfloat16>(), out[2].as<__nv_bfloat16>(), dims, stream);
  };
}

Candidate gemm(GemmVariant variant, const worker::WorkerJob& job) {
  std::int64_t m = job.inputs[0].shape[0], k = job.inputs[0].shape[1], n = job.inputs[1].shape[0];
  return [=](std::span<DeviceTensor> in, std::vector<DeviceBuffer>& out, cudaStream_t stream) {
    run_gemm(variant, static_cast<const __nv_bfloat16*>(in[0].data()),
             static_cast<const __nv_bfloat16*>(in[1].data()), out[0].as<__nv_bfloat16>(), m, n, k,
             stream);
  };
}

std::vector<OutputVerdict> judge_forward(ForwardVariant variant, const task::Task& task,
                                         const std::string& workload_name) {
  worker::WorkerJob job = worker::make_job(task, workload(task, workload_name));
  return judge_trial(task, workload_name, to_string(variant), forward(variant, job));
}

const OutputVerdict& output(const std::vector<OutputVerdict>& verdicts, const std::string& name) {
  for (const auto& v : verdicts) {
    if (v.name == name) return v;
  }
  throw std::runtime_error("no output " + name);
}

bool all_as_accurate(const std::vector<OutputVerdict>& verdicts) {
  bool all = !verdicts.empty();
  for (const auto& v : verdicts) all = all && v.accuracy.passed;
  return all;
}

// Forward tasks at B = 1, H = 8: the numerics per row are those of the full size.
class ForwardRule : public ::testing::Test {
 protected:
  void SetUp() override { PTXBENCH_CORRECTNESS_REQUIRE_GPU(); }
  task::Task d128 = load_task("mha_fwd", "mha_fwd_lse_d128", 1, 8);
  task::Task d128_causal = load_task("mha_fwd", "mha_fwd_lse_d128_causal", 1, 8);
};

TEST_F(ForwardRule, CorrectKernelsThatRoundDifferentlyPass) {
  for (auto variant :
       {ForwardVariant::kProbabilitiesInFp32, ForwardVariant::kProbabilitiesInBf16}) {
    for (const char* w : {"S1024", "S8192"}) {
      EXPECT_TRUE(all_as_accurate(judge_forward(variant, d128, w)))
          << to_string(variant) << " " << w;
    }
    EXPECT_TRUE(all_as_accurate(judge_forward(variant, d128_causal, "S4096")))
        << to_string(variant);
  }
  // Keeping P in fp32 is more accurate than the library even on heavy-tailed scores.
  EXPECT_TRUE(
      all_as_accurate(judge_forward(ForwardVariant::kProbabilitiesInFp32, d128, "S1024_spiky")));
}

TEST_F(ForwardRule, AMissingRescaleFails) {
  for (const char* w : {"S8192", "S1024_spiky"}) {
    auto verdicts = judge_forward(ForwardVariant::kMissingRescale, d128, w);
    EXPECT_FALSE(output(verdicts, "O").accuracy.passed) << w;
    EXPECT_TRUE(output(verdicts, "LSE").accuracy.passed) << w;  // the sum is rescaled right
  }
}

TEST_F(ForwardRule, LogSumExpInBaseTwoFails) {
  auto verdicts = judge_forward(ForwardVariant::kLogSumExpInBase2, d128, "S1024");
  EXPECT_FALSE(output(verdicts, "LSE").accuracy.passed);
  EXPECT_FALSE(output(verdicts, "LSE").matches_library);
  EXPECT_TRUE(output(verdicts, "O").accuracy.passed);
}

TEST_F(ForwardRule, Bf16AccumulationFailsOnALongSequence) {
  auto verdicts = judge_forward(ForwardVariant::kBf16Accumulation, d128, "S8192");
  const OutputVerdict o = output(verdicts, "O");  // a copy: g++ 13 warns of a dangling reference
  EXPECT_FALSE(o.accuracy.passed);
  // Its error is many times the library's on average, which an element rule cannot see.
  EXPECT_GT(o.accuracy.mean_abs.candidate, 4 * o.accuracy.mean_abs.library);
}

// The case seen on the H200 (a forward failing the original rule on 3 of 50,331,648 elements
// of S1024_spiky): the full core shape, P rounded to bf16 as tensor-core kernels do, and P in
// fp32. The kernel that keeps P in fp32 is at least as accurate as cuDNN and must pass; for the
// bf16-P kernel the verdict must come with the figures that decide it.
TEST(NearTie, D256SpikyGetsAVerdictWithItsFigures) {
  PTXBENCH_CORRECTNESS_REQUIRE_GPU();
  task::Task d256 = load_task("mha_fwd", "mha_fwd_lse_d256");
  auto fp32_p = judge_forward(ForwardVariant::kProbabilitiesInFp32, d256, "S1024_spiky");
  EXPECT_TRUE(all_as_accurate(fp32_p));
  auto bf16_p = judge_forward(ForwardVariant::kProbabilitiesInBf16, d256, "S1024_spiky");
  for (const OutputVerdict& v : bf16_p) {
    const AccuracyFigures& f = v.accuracy;
    EXPECT_EQ(f.passed, accuracy_failure(f).empty()) << v.name;
    EXPECT_EQ(f.compared, v.original.elements) << v.name;
    EXPECT_GT(f.max_abs.library, 0) << v.name << ": the library is not the truth either";
    if (!v.matches_library && f.passed) {
      // the library's own errors explain every disagreement
      EXPECT_LE(f.candidate_duels_lost, f.allowed_duels_lost);
      EXPECT_LE(f.max_abs.candidate, f.max_abs.budget);
    }
  }
}

TEST(BackwardRule, FaithfulKernelPassesAndBf16AccumulationFails) {
  PTXBENCH_CORRECTNESS_REQUIRE_GPU();
  for (const char* name : {"mha_bwd_d128", "mha_bwd_d128_causal"}) {
    task::Task task = load_task("mha_bwd", name, 1, 4);
    worker::WorkerJob job = worker::make_job(task, workload(task, "S1024"));
    EXPECT_TRUE(all_as_accurate(judge_trial(task, "S1024", to_string(BackwardVariant::kFp32),
                                            backward(BackwardVariant::kFp32, job))))
        << name;
  }
  task::Task task = load_task("mha_bwd", "mha_bwd_d128", 1, 4);
  worker::WorkerJob job = worker::make_job(task, workload(task, "S8192"));
  auto verdicts = judge_trial(task, "S8192", to_string(BackwardVariant::kBf16Accumulation),
                              backward(BackwardVariant::kBf16Accumulation, job));
  EXPECT_TRUE(output(verdicts, "dQ").accuracy.passed);  // dQ is summed in fp32
  EXPECT_FALSE(output(verdicts, "dV").accuracy.passed);
  EXPECT_FALSE(output(verdicts, "dK").accuracy.passed);
}

TEST(GemmRule, AnotherSumOrderPassesAndBf16AccumulationFails) {
  PTXBENCH_CORRECTNESS_REQUIRE_GPU();
  task::Task task = load_task("gemm", "gemm_n4096_k4096");
  for (const char* w : {"M232", "M972_spiky"}) {
    worker::WorkerJob job = worker::make_job(task, workload(task, w));
    EXPECT_TRUE(all_as_accurate(judge_trial(task, w, to_string(GemmVariant::kReversedOrder),
                                            gemm(GemmVariant::kReversedOrder, job))))
        << w;
  }
  worker::WorkerJob job = worker::make_job(task, workload(task, "M232"));
  auto verdicts = judge_trial(task, "M232", to_string(GemmVariant::kBf16Accumulation),
                              gemm(GemmVariant::kBf16Accumulation, job));
  EXPECT_FALSE(output(verdicts, "C").accuracy.passed);
}

}  // namespace
}  // namespace ptxbench::eval::correctness::test
