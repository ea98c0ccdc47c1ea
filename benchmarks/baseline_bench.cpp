// ptxbench-bench-baselines: times the baselines (cuBLASLt GEMM with its algorithm search, cuDNN
// SDPA forward and backward) the way benchmarks/torch_baselines.py times PyTorch on the same
// shapes: random inputs, L2 flushed before every call, CUDA events around it, median of many.
// Prints one JSON object per line; compare_baselines.py joins it with torch_baselines.py's.
// benchmarks/interleaved_baselines.py times both sides call by call in one process instead.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "baseline_jobs.hpp"
#include "ptxbench/eval/correctness/gpu/baseline.hpp"
#include "ptxbench/eval/worker/gpu/device_info.hpp"
#include "ptxbench/eval/worker/gpu/gpu_timer.hpp"
#include "ptxbench/eval/worker/gpu/l2_flush.hpp"
#include "ptxbench/eval/worker/gpu/nvml_clocks.hpp"

namespace {

using namespace ptxbench::eval;

constexpr int kWarmup = 5;
constexpr int kRepetitions = 50;

nlohmann::json measure(worker::WorkerJob job, cudaStream_t stream, gpu::L2Flusher& flusher,
                       const gpu::NvmlDevice& nvml) {
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
          {"tflops", ptxbench::bench::job_flops(job) / (median * 1e-3) / 1e12},
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
  for (const auto& job : ptxbench::bench::compared_jobs()) {
    nlohmann::json row = measure(job, stream.get(), flusher, nvml);
    std::printf("%s\n", row.dump().c_str());
    std::fflush(stdout);
  }
  return 0;
}
