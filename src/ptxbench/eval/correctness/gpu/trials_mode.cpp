// `ptxbench-worker trials`: the candidate process of a verdict under the warm judge
// (correctness/session_protocol.hpp). Untrusted: it runs the candidate, one trial per line read
// from stdin, in the exchange sets the judge shares with it, and answers one reply line per
// trial. The inputs are the judge's, in the set; the candidate writes its outputs into fresh
// memory of this process, and right after run() returns they are copied into the set on the
// caller's stream, so work run() left on another stream without joining it is not waited for
// (as with the fresh judge). A set in host memory is copied in and out around the call. The
// first failure ends the process after its reply.
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "ptxbench/eval/correctness/gpu/exchange_set.hpp"
#include "ptxbench/eval/correctness/gpu/tensor_kernels.hpp"
#include "ptxbench/eval/correctness/gpu/trials_mode.hpp"
#include "ptxbench/eval/correctness/session_protocol.hpp"
#include "ptxbench/eval/worker/gpu/candidate_library.hpp"
#include "ptxbench/eval/worker/gpu/device_tensors.hpp"
#include "ptxbench/eval/worker/gpu/gpu_timer.hpp"
#include "ptxbench/eval/worker/gpu/resource_limits.hpp"
#include "ptxbench/eval/worker/gpu/watchdog.hpp"
#include "ptxbench/eval/worker/gpu/worker_modes.hpp"

namespace ptxbench::eval::gpu {
namespace {

using correctness::ExchangeKind;
using worker::ReplyStatus;
using Clock = std::chrono::steady_clock;

class TrialRunner {
 public:
  TrialRunner(correctness::CandidateSession session, std::vector<ExchangeSet> sets,
              const CandidateLibrary& library)
      : session_(std::move(session)), sets_(std::move(sets)), library_(library) {}

  // One trial; false after its failure reply (the process ends then).
  bool run(const correctness::CandidateTrialRequest& request) {
    if (request.job >= session_.jobs.size()) {
      print_reply(ReplyStatus::kInternalError, "a trial of no job");
      return false;
    }
    const worker::WorkerJob& job = session_.jobs[request.job];
    const ExchangeSet& set = sets_.at(static_cast<std::size_t>(request.set));
    const std::string what =
        fmt::format("run() on workload {} (trial {})", job.workload, request.trial + 1);
    std::vector<DeviceTensor> inputs = inputs_in(job, set, request.placement);
    std::vector<DeviceTensor> outputs;
    for (const auto& desc : job.outputs) {
      outputs.emplace_back(desc, expect_value(DeviceBuffer::try_allocate(desc.bytes()), "output"));
      outputs.back().poison(stream_.get());
    }
    std::vector<DLTensor*> args;
    for (auto& t : inputs) args.push_back(t.dl());
    for (auto& t : outputs) args.push_back(t.dl());
    PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    process_parts().mark(part::kInputs);
    DeviceMemoryCap cap;
    if (job.device_memory_limit_bytes > 0) cap = DeviceMemoryCap(job.device_memory_limit_bytes);
    called_ = true;
    Watchdog watchdog(job.limits.call_timeout, what);
    const auto start = Clock::now();
    auto raised = library_.call(args, stream_.get());
    (void)cudaEventRecord(copy_start_.get(), stream_.get());
    snapshot(job, set, request.placement, inputs, outputs);
    (void)cudaEventRecord(copy_end_.get(), stream_.get());
    const std::string device_error = synchronize_device();
    const double call_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    float copy_ms = 0;
    if (device_error.empty() &&
        cudaEventElapsedTime(&copy_ms, copy_start_.get(), copy_end_.get()) != cudaSuccess)
      copy_ms = 0;
    process_parts().mark_split(part::kCandidateCalls, part::kCopies, copy_ms / 1000.0);
    if (raised) {
      print_reply(ReplyStatus::kRuntimeError, what + " raised: " + raised->message);
      return false;
    }
    if (!device_error.empty()) {
      print_reply(ReplyStatus::kRuntimeError, what + " failed on the GPU: " + device_error);
      return false;
    }
    print_reply(ReplyStatus::kOk, "", nlohmann::json{{"call_ms", call_ms}});
    return true;
  }

  bool called() const { return called_; }

 private:
  // The judge's inputs: views of the set (device), or copies of it (host).
  std::vector<DeviceTensor> inputs_in(const worker::WorkerJob& job, const ExchangeSet& set,
                                      const correctness::TrialPlacement& placement) {
    std::vector<DeviceTensor> inputs;
    for (std::size_t i = 0; i < job.inputs.size(); ++i) {
      const auto& desc = job.inputs[i];
      const auto at = placement.inputs.at(i);
      if (set.kind() == ExchangeKind::kDevice) {
        inputs.push_back(DeviceTensor::view(desc, set.device(at)));
        continue;
      }
      inputs.emplace_back(desc, expect_value(DeviceBuffer::try_allocate(desc.bytes()), "input"));
      PTXBENCH_CUDA_CHECK(cudaMemcpyAsync(inputs.back().data(), set.host(at), desc.bytes(),
                                          cudaMemcpyHostToDevice, stream_.get()));
    }
    return inputs;
  }

  // The outputs into the set on the caller's stream (and, for a host set, the inputs too, for
  // the judge's check that the call left them as they were). A failed copy leaves the judge's
  // poison, which it reads as unwritten.
  void snapshot(const worker::WorkerJob& job, const ExchangeSet& set,
                const correctness::TrialPlacement& placement,
                const std::vector<DeviceTensor>& inputs, const std::vector<DeviceTensor>& outputs) {
    const bool device = set.kind() == ExchangeKind::kDevice;
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      const auto at = placement.outputs.at(o);
      (void)cudaMemcpyAsync(device ? set.device(at) : static_cast<void*>(set.host(at)),
                            outputs[o].data(), outputs[o].bytes(),
                            device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost,
                            stream_.get());
    }
    if (device) return;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      (void)cudaMemcpyAsync(set.host(placement.inputs.at(i)), inputs[i].data(), inputs[i].bytes(),
                            cudaMemcpyDeviceToHost, stream_.get());
    }
    (void)job;
  }

  correctness::CandidateSession session_;
  std::vector<ExchangeSet> sets_;
  const CandidateLibrary& library_;
  CudaStream stream_;
  CudaEvent copy_start_;
  CudaEvent copy_end_;
  bool called_ = false;
};

}  // namespace

int run_trials_mode() {
  PTXBENCH_CUDA_CHECK(cudaSetDevice(0));
  PTXBENCH_CUDA_CHECK(cudaFree(nullptr));
  process_parts().mark(part::kContext);
  std::string line;
  if (!std::getline(std::cin, line)) {
    print_reply(ReplyStatus::kInternalError, "no session line");
    return 2;
  }
  auto session =
      correctness::candidate_session_from_json(nlohmann::json::parse(line, nullptr, false));
  if (!session) {
    print_reply(ReplyStatus::kInternalError, session.error().message);
    return 2;
  }
  std::vector<ExchangeSet> sets;
  for (int fd : session->set_fds) {
    auto set = ExchangeSet::import(session->kind, fd, session->set_bytes);
    if (!set) {
      print_reply(ReplyStatus::kInternalError, "exchange memory: " + set.error().message);
      return 2;
    }
    sets.push_back(std::move(*set));
  }
  auto library = CandidateLibrary::open(session->jobs.front().library);
  if (!library) {
    print_reply(ReplyStatus::kRuntimeError, library.error().message);
    return 0;
  }
  process_parts().mark(part::kModuleLoad);
  auto host_memory = guard_host_memory(session->jobs.front());
  TrialRunner runner(std::move(*session), std::move(sets), library.value());
  print_reply(ReplyStatus::kOk, "ready");
  while (std::getline(std::cin, line)) {
    auto request =
        correctness::candidate_trial_from_json(nlohmann::json::parse(line, nullptr, false));
    if (!request) {
      print_reply(ReplyStatus::kInternalError, request.error().message);
      return 2;
    }
    try {
      if (!runner.run(*request)) return 0;
    } catch (const std::exception& e) {
      // Once the candidate has run in this process, a CUDA failure is its doing; before, ours.
      if (!runner.called()) throw;
      print_reply(ReplyStatus::kRuntimeError, std::string("after the candidate ran: ") + e.what());
      return 0;
    }
  }
  return 0;  // ptxbench closed stdin: every trial ran
}

}  // namespace ptxbench::eval::gpu
