// The untrusted half of correctness: the candidate runs here, never next to the reference.
#include <fmt/format.h>

#include <fstream>
#include <optional>
#include <vector>

#include "ptxbench/eval/correctness/correctness_protocol.hpp"
#include "ptxbench/eval/correctness/gpu/baseline.hpp"
#include "ptxbench/eval/worker/exchange.hpp"
#include "ptxbench/eval/worker/gpu/candidate_library.hpp"
#include "ptxbench/eval/worker/gpu/device_tensors.hpp"
#include "ptxbench/eval/worker/gpu/gpu_timer.hpp"
#include "ptxbench/eval/worker/gpu/resource_limits.hpp"
#include "ptxbench/eval/worker/gpu/watchdog.hpp"
#include "ptxbench/eval/worker/gpu/worker_modes.hpp"

namespace ptxbench::eval::gpu {
namespace {

using worker::ReplyStatus;

// One hash per input, in ABI order (the judge computes the same from the same seed).
std::vector<std::string> input_hashes(const DeviceTensors& tensors, cudaStream_t stream) {
  std::vector<std::string> hashes;
  for (const auto& input : tensors.inputs()) {
    hashes.push_back(fmt::format("{:016x}", input.hash(stream)));
  }
  return hashes;
}

// The outputs as the caller's stream sees them right after run() returns: the copies are
// enqueued on that stream before any device-wide synchronisation, so work the candidate left on
// another stream without joining it is not waited for (its outputs read as wrong or unwritten).
// A failed copy leaves its bytes as they are; synchronize_device() reports the fault.
std::vector<std::vector<char>> snapshot_outputs(const DeviceTensors& tensors, cudaStream_t stream) {
  std::vector<std::vector<char>> snapshots;
  for (const auto& output : tensors.outputs()) {
    snapshots.emplace_back(output.bytes());
    (void)cudaMemcpyAsync(snapshots.back().data(), output.data(), output.bytes(),
                          cudaMemcpyDeviceToHost, stream);
  }
  return snapshots;
}

void write_output(const std::vector<char>& host, const std::filesystem::path& file) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(host.data(), static_cast<std::streamsize>(host.size()));
  PTXBENCH_CHECK(out.good(), "cannot write " + file.string());
}

// What went wrong in the candidate, for the reply; nullopt when the trial ran cleanly.
struct Failure {
  ReplyStatus status;
  std::string message;
};

class CandidateRun {
 public:
  CandidateRun(const std::vector<worker::WorkerJob>& jobs, const CandidateLibrary& library)
      : jobs_(jobs), library_(library) {}

  std::optional<Failure> run_all(correctness::CandidateReply& reply) {
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      correctness::CandidateJob job_record{.workload = jobs_[j].workload};
      auto failure = run_job(j, job_record);
      reply.jobs.push_back(std::move(job_record));
      if (failure) {
        reply.failed_job = j;
        return failure;
      }
    }
    return std::nullopt;
  }

  bool called() const { return called_; }

 private:
  std::optional<Failure> run_job(std::size_t j, correctness::CandidateJob& record) {
    const worker::WorkerJob& job = jobs_[j];
    std::unique_ptr<Baseline> baseline;
    if (operator_derives_inputs(job)) {
      baseline = expect_value(make_baseline(job, stream_.get()), "baseline for derived inputs");
      process_parts().mark(part::kLibraryReference);
    }
    // The previous trial's tensors stay alive while the next are allocated: new addresses.
    std::optional<DeviceTensors> previous;
    for (int t = 0; t < job.trials; ++t) {
      std::uint64_t seed = worker::trial_seed(job.seed, t);
      DeviceTensors tensors = expect_value(
          make_trial_tensors(job, seed, stream_.get(), baseline.get()), "trial tensors");
      std::vector<std::string> before = input_hashes(tensors, stream_.get());
      process_parts().mark(part::kInputs);
      auto failure = call(job, t, tensors);
      if (failure) return failure;
      std::vector<std::string> after = input_hashes(tensors, stream_.get());
      process_parts().mark(part::kInputs);
      if (!job.exchange_dir.empty()) {
        const auto& outputs = tensors.outputs();
        for (std::size_t o = 0; o < outputs.size(); ++o) {
          write_output(last_outputs_.at(o),
                       worker::exchange_file(job.exchange_dir, j, t, outputs[o].desc().name));
        }
        process_parts().mark(part::kCopies);
      }
      record.trials.push_back({.trial = t,
                               .seed = seed,
                               .input_hashes_before = std::move(before),
                               .input_hashes_after = std::move(after),
                               .call_ms = last_call_ms_});
      previous = std::move(tensors);
    }
    return std::nullopt;
  }

  std::optional<Failure> call(const worker::WorkerJob& job, int trial, DeviceTensors& tensors) {
    std::string what = fmt::format("run() on workload {} (trial {})", job.workload, trial + 1);
    DeviceMemoryCap cap;
    if (job.device_memory_limit_bytes > 0) cap = DeviceMemoryCap(job.device_memory_limit_bytes);
    auto args = tensors.arguments();
    called_ = true;
    Watchdog watchdog(job.limits.call_timeout, what);
    auto start = std::chrono::steady_clock::now();
    auto raised = library_.call(args, stream_.get());
    // The snapshot's copies are timed by events apart from the call (stage parts only).
    (void)cudaEventRecord(copy_start_.get(), stream_.get());
    last_outputs_.clear();
    if (!job.exchange_dir.empty()) last_outputs_ = snapshot_outputs(tensors, stream_.get());
    (void)cudaEventRecord(copy_end_.get(), stream_.get());
    std::string device_error = synchronize_device();
    last_call_ms_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    float copy_ms = 0;
    if (device_error.empty() &&
        cudaEventElapsedTime(&copy_ms, copy_start_.get(), copy_end_.get()) != cudaSuccess)
      copy_ms = 0;
    process_parts().mark_split(part::kCandidateCalls, part::kCopies, copy_ms / 1000.0);
    if (raised) return Failure{ReplyStatus::kRuntimeError, what + " raised: " + raised->message};
    if (!device_error.empty()) {
      return Failure{ReplyStatus::kRuntimeError, what + " failed on the GPU: " + device_error};
    }
    return std::nullopt;
  }

  const std::vector<worker::WorkerJob>& jobs_;
  const CandidateLibrary& library_;
  bool called_ = false;
  CudaStream stream_;
  CudaEvent copy_start_;
  CudaEvent copy_end_;
  double last_call_ms_ = 0;
  std::vector<std::vector<char>> last_outputs_;  // the last call's outputs, in stream order
};

}  // namespace

int run_candidate_mode(const std::vector<worker::WorkerJob>& jobs) {
  PTXBENCH_CUDA_CHECK(cudaSetDevice(0));
  PTXBENCH_CUDA_CHECK(cudaFree(nullptr));  // create the context before limiting memory
  process_parts().mark(part::kContext);
  auto library = CandidateLibrary::open(jobs.front().library);
  process_parts().mark(part::kModuleLoad);
  if (!library) {
    print_reply(ReplyStatus::kRuntimeError, library.error().message);
    return 0;
  }
  correctness::CandidateReply reply;
  auto host_memory = guard_host_memory(jobs.front());
  reply.host_memory_budget_bytes = jobs.front().limits.host_memory_budget_bytes;
  CandidateRun run(jobs, library.value());
  try {
    if (auto failure = run.run_all(reply)) {
      print_reply(failure->status, failure->message, to_json(reply));
      return 0;
    }
  } catch (const std::exception& e) {
    // Once the candidate has run in this process, a CUDA failure (a sticky fault, an exhausted
    // device) is its doing; before, it is ours.
    if (!run.called()) throw;
    print_reply(ReplyStatus::kRuntimeError, std::string("after the candidate ran: ") + e.what(),
                to_json(reply));
    return 0;
  }
  print_reply(ReplyStatus::kOk, "", to_json(reply));
  return 0;
}

}  // namespace ptxbench::eval::gpu
