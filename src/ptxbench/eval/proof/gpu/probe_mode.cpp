#include "ptxbench/eval/proof/gpu/probe_mode.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>

#include "ptxbench/eval/proof/gpu/sass_metrics.hpp"
#include "ptxbench/eval/proof/probe_protocol.hpp"
#include "ptxbench/eval/worker/gpu/candidate_library.hpp"
#include "ptxbench/eval/worker/gpu/cuda_check.hpp"
#include "ptxbench/eval/worker/gpu/device_tensors.hpp"
#include "ptxbench/eval/worker/gpu/gpu_timer.hpp"
#include "ptxbench/eval/worker/gpu/watchdog.hpp"
#include "ptxbench/eval/worker/gpu/worker_modes.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval::gpu {
namespace {

using worker::ReplyStatus;

util::Expected<worker::WorkerJob> read_job(int argc, char** argv) {
  std::string text;
  if (argc >= 4 && std::string_view(argv[2]) == "--job") {
    auto file = util::read_file(argv[3]);
    if (!file) return file.error();
    text = std::move(*file);
  } else if (argc == 2) {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    return util::make_error("usage: ptxbench-worker probe [--job FILE]");
  }
  auto jobs = worker::parse_jobs(text);
  if (!jobs) return jobs.error();
  if (jobs->size() != 1) return util::make_error("the probe takes exactly one job");
  return std::move(jobs->front());
}

std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path) {
  auto text = util::read_file(path);
  PTXBENCH_CHECK(text.has_value(), "cannot read the candidate's cubin " + path.string());
  return {text->begin(), text->end()};
}

// Prints the reply and ends the process at once: nothing of the candidate may print after it.
[[noreturn]] void answer(ReplyStatus status, std::string_view message, nlohmann::json body = {}) {
  print_reply(status, message, std::move(body));
  std::fflush(stderr);
  std::_Exit(0);
}

ProbeReport observe(const worker::WorkerJob& job, const ProbeRequest& request) {
  PTXBENCH_CUDA_CHECK(cudaSetDevice(0));
  PTXBENCH_CUDA_CHECK(cudaFree(nullptr));
  CUcontext context = nullptr;
  PTXBENCH_CU_CHECK(cuCtxGetCurrent(&context));
  process_parts().mark(part::kContext);
  auto library = CandidateLibrary::open(job.library);
  if (!library) answer(ReplyStatus::kRuntimeError, library.error().message);
  process_parts().mark(part::kModuleLoad);
  CudaStream stream;
  auto tensors = expect_value(
      make_trial_tensors(job, worker::trial_seed(job.seed, 0), stream.get()), "probe tensors");
  auto arguments = tensors.arguments();
  PTXBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  process_parts().mark(part::kInputs);

  // Only now, with everything prepared and the GPU idle: a cudaMemset between the session's
  // config and arm() left the window empty on an H200.
  SassMetricsSession session(context, SassMetricsConfig{});
  session.arm();
  std::optional<util::Error> raised;
  std::string device_error;
  {
    Watchdog watchdog(job.limits.call_timeout, "run() under the probe");
    raised = library->call(arguments, stream.get());
    device_error = synchronize_device();
  }
  if (raised) answer(ReplyStatus::kRuntimeError, "run() raised: " + raised->message);
  if (!device_error.empty()) {
    answer(ReplyStatus::kRuntimeError, "run() failed on the GPU: " + device_error);
  }
  process_parts().mark(part::kProfiler);  // the call under CUPTI's instrumentation

  const SassMetricsResult result = session.collect();
  ProbeReport report;
  report.kernel = result.observed_function;
  report.launched = !result.observed_function.empty();
  report.launches = result.observed_launches;
  report.graph_launches = result.graph_launches;
  report.launched_functions = result.launched_functions;
  report.metrics = result.metric_names;
  report.dropped_records = result.dropped_records;
  for (const SassPcRecord& record : result.records) {
    ProbeRecord out{.cubin_crc = record.cubin_crc,
                    .function = record.function_name,
                    .pc_offset = record.pc_offset};
    for (std::uint64_t count : record.counts)
      out.counts.push_back(static_cast<std::int64_t>(count));
    report.records.push_back(std::move(out));
  }
  std::vector<std::uint8_t> candidate;
  if (!request.cubin.empty()) {
    candidate = read_bytes(request.cubin);
    // The records carry the low 32 bits of CUPTI's CRC.
    report.candidate_crc = static_cast<std::uint32_t>(cubin_crc(candidate));
  }
  for (const LoadedModule& module : session.loaded_modules()) {
    report.modules.push_back({.crc = static_cast<std::uint32_t>(module.crc),
                              .bytes = module.cubin.size(),
                              .candidate = !candidate.empty() && module.cubin == candidate});
  }
  return report;
}

}  // namespace

int run_probe_mode(int argc, char** argv) {
  try {
    auto job = read_job(argc, argv);
    if (!job) answer(ReplyStatus::kInternalError, job.error().message);
    const auto* request = std::get_if<ProbeRequest>(&job->request);
    if (request == nullptr) {
      answer(ReplyStatus::kInternalError, "the job's request is for the " +
                                              std::string(worker::mode_of(job->request)) +
                                              " mode, not the probe");
    }
    const ProbeReport report = observe(*job, *request);
    answer(ReplyStatus::kOk, "", to_json(report));
  } catch (const std::exception& e) {
    answer(ReplyStatus::kInternalError, e.what());
  }
}

}  // namespace ptxbench::eval::gpu
