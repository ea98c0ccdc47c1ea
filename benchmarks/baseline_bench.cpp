// ptxbench-bench-baselines: times the baselines (cuBLASLt GEMM with its algorithm search, cuDNN
// SDPA forward and backward) the way benchmarks/torch_baselines.py times PyTorch on the same
// shapes: random inputs, L2 flushed before every call, CUDA events around it, median of many.
// Prints one JSON object per line and a table; compare_baselines.py joins the two.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptxbench/eval/gpu/baseline.hpp"
#include "ptxbench/eval/gpu/device_info.hpp"
#include "ptxbench/eval/gpu/gpu_timer.hpp"
#include "ptxbench/eval/gpu/l2_flush.hpp"
#include "ptxbench/eval/gpu/nvml_clocks.hpp"
#include "ptxbench/eval/worker/worker_gpu_stages.hpp"

namespace {

using namespace ptxbench::eval;
using ptxbench::task::DType;

constexpr int kWarmup = 5;
constexpr int kRepetitions = 50;

worker::TensorDesc tensor(std::string name, std::vector<std::int64_t> shape,
                          DType dtype = DType::kBFloat16) {
  return worker::TensorDesc{.name = std::move(name), .dtype = dtype, .shape = std::move(shape)};
}

worker::WorkerJob gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  worker::WorkerJob job;
  job.op_type = "gemm";
  job.baseline = "cublaslt.gemm_bf16_nt";
  job.workload = fmt::format("M{} N{} K{}", m, n, k);
  job.inputs = {tensor("A", {m, k}), tensor("B", {n, k})};
  job.outputs = {tensor("C", {m, n})};
  return job;
}

worker::WorkerJob attention(bool backward, std::int64_t b, std::int64_t h, std::int64_t s,
                            std::int64_t d, bool causal) {
  worker::WorkerJob job;
  job.op_type = backward ? "mha_bwd" : "mha_fwd_lse";
  job.baseline = backward ? "cudnn.sdpa_bwd" : "cudnn.sdpa_fwd";
  job.workload = fmt::format("B{} H{} S{} D{}{}", b, h, s, d, causal ? " causal" : "");
  job.parameters = {{"causal", causal ? 1.0 : 0.0}};
  auto bhsd = [&](const char* name) { return tensor(name, {b, h, s, d}); };
  auto lse = tensor("LSE", {b, h, s}, DType::kFloat32);
  if (backward) {
    job.inputs = {bhsd("Q"), bhsd("K"), bhsd("V"), bhsd("O"), bhsd("dO"), lse};
    job.outputs = {bhsd("dQ"), bhsd("dK"), bhsd("dV")};
  } else {
    job.inputs = {bhsd("Q"), bhsd("K"), bhsd("V")};
    job.outputs = {bhsd("O"), lse};
  }
  return job;
}

double flops(const worker::WorkerJob& job) {
  const auto& a = job.inputs[0].shape;
  if (job.op_type == "gemm") return 2.0 * a[0] * job.inputs[1].shape[0] * a[1];
  double forward = 4.0 * a[0] * a[1] * a[2] * a[2] * a[3];
  if (job.parameters.at("causal") != 0) forward /= 2;
  return job.op_type == "mha_bwd" ? 2.5 * forward : forward;
}

nlohmann::json measure(worker::WorkerJob job, cudaStream_t stream, gpu::L2Flusher& flusher,
                       const gpu::NvmlDevice& nvml) {
  job.cache_dir = worker::default_baseline_cache_dir();
  auto baseline = gpu::make_baseline(job, stream);
  if (!baseline)
    return {{"op", job.baseline}, {"shape", job.workload}, {"error", baseline.error().message}};
  auto tensors = gpu::make_trial_tensors(job, 1, stream, baseline.value().get());
  if (!tensors)
    return {{"op", job.baseline}, {"shape", job.workload}, {"error", tensors.error().message}};
  gpu::EventTimer timer;
  std::vector<double> times;
  for (int i = 0; i < kWarmup + kRepetitions; ++i) {
    flusher.flush(stream);
    timer.start(stream);
    baseline.value()->run(tensors->inputs(), tensors->outputs(), stream);
    double ms = timer.stop_ms(stream);
    if (i >= kWarmup) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  double median = times[times.size() / 2];
  return {{"op", job.baseline},
          {"shape", job.workload},
          {"median_ms", median},
          {"min_ms", times.front()},
          {"tflops", flops(job) / (median * 1e-3) / 1e12},
          {"sm_clock_mhz_after", nvml.sm_clock_mhz().value_or(0)},
          {"baseline", baseline.value()->describe()}};
}

}  // namespace

int main() {
  PTXBENCH_CUDA_CHECK(cudaSetDevice(0));
  gpu::DeviceInfo info = gpu::query_device_info();
  std::printf("%s\n", nlohmann::json{{"device", info.as_toolchain()}}.dump().c_str());
  gpu::CudaStream stream;
  gpu::L2Flusher flusher;
  gpu::NvmlDevice nvml(0);
  std::vector<worker::WorkerJob> jobs = {gemm(8192, 8192, 8192),
                                         gemm(4096, 7168, 5120),
                                         gemm(8192, 2048, 7168),
                                         gemm(8192, 7168, 5120),
                                         attention(false, 4, 48, 4096, 128, false),
                                         attention(true, 4, 48, 4096, 128, false),
                                         attention(false, 4, 48, 4096, 128, true),
                                         attention(true, 4, 48, 4096, 128, true)};
  for (const auto& job : jobs) {
    nlohmann::json row = measure(job, stream.get(), flusher, nvml);
    std::printf("%s\n", row.dump().c_str());
    std::fflush(stdout);
  }
  return 0;
}
