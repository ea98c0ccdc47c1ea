// Timing: candidate and baseline in one process, interleaved round by round on the same fresh
// inputs. Per sample: the L2 is flushed, a blocking kernel holds the stream while the call is
// enqueued, and the call's time is the span of all GPU work CUPTI attributes to it (any stream,
// any thread). Samples taken while the SM clock is pulled down are dropped; the loop stops when
// both sides are quiet enough or at the time limit. The same trace judges the ABI's rules at
// run time: every kernel a candidate call launched is its own (no library kernels), and all its
// work ran on the caller's stream (timing/stream_rule.hpp); either breach is FORBIDDEN.
#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "ptxbench/eval/correctness/gpu/baseline.hpp"
#include "ptxbench/eval/correctness/gpu/tensor_kernels.hpp"
#include "ptxbench/eval/correctness/output_comparison.hpp"
#include "ptxbench/eval/kernel_name.hpp"
#include "ptxbench/eval/timing/gpu/blocking_kernel.hpp"
#include "ptxbench/eval/timing/gpu/kernel_trace.hpp"
#include "ptxbench/eval/timing/statistics.hpp"
#include "ptxbench/eval/timing/stream_rule.hpp"
#include "ptxbench/eval/timing/timed_call_audit.hpp"
#include "ptxbench/eval/timing/timed_output_rule.hpp"
#include "ptxbench/eval/timing/timing_protocol.hpp"
#include "ptxbench/eval/timing/timing_record.hpp"
#include "ptxbench/eval/worker/gpu/candidate_library.hpp"
#include "ptxbench/eval/worker/gpu/device_tensors.hpp"
#include "ptxbench/eval/worker/gpu/gpu_timer.hpp"
#include "ptxbench/eval/worker/gpu/l2_flush.hpp"
#include "ptxbench/eval/worker/gpu/nvml_clocks.hpp"
#include "ptxbench/eval/worker/gpu/resource_limits.hpp"
#include "ptxbench/eval/worker/gpu/watchdog.hpp"
#include "ptxbench/eval/worker/gpu/worker_modes.hpp"

namespace ptxbench::eval::gpu {
namespace {

using worker::ReplyStatus;

constexpr int kWarmupCalls = 2;
constexpr int kRoundSeedBase = 1000;  // timing inputs differ from every correctness trial's

// "ns::kernel<int>" from "void ns::kernel<int>(float*, int)" (eval/kernel_name.hpp).
std::string function_name(const std::string& name) {
  return KernelName(name).function();
}

struct Sample {
  int window = 0;
  bool candidate = false;
  double event_ms = 0;
  double sm_clock_mhz = 0;
  bool throttled = false;
  bool power_capped = false;
  bool discarded = false;  // the blocking kernel timed out: the call synchronised inside
};

struct SideResult {
  std::vector<double> span_ms;
  std::vector<double> event_ms;
  std::vector<double> clocks;
  int dropped_throttled = 0;
  int power_capped = 0;
  int no_gpu_work = 0;
  int max_kernels = 0;
  worker::SampleSummary summary() const { return worker::summarize(span_ms); }
};

// The candidate's outputs of a timed round (an audited one, or the last) against the baseline's
// on the same inputs: a candidate that skips work once it has seen its inputs' addresses, or
// after some calls, shows here.
std::vector<timing::TimedOutputCheck> compare_round(const worker::WorkerJob& job,
                                                    DeviceTensors& tensors,
                                                    DeviceTensors& baseline_outputs,
                                                    cudaStream_t stream, bool& match) {
  match = true;
  std::vector<timing::TimedOutputCheck> checks;
  for (std::size_t i = 0; i < tensors.outputs().size(); ++i) {
    const auto& desc = tensors.outputs()[i].desc();
    auto totals = compare_tensors(tensors.outputs()[i].data(), baseline_outputs.outputs()[i].data(),
                                  desc.dtype, desc.elements(), job.tolerance.atol,
                                  job.tolerance.rtol, stream);
    const bool agrees = timing::timed_output_agrees(totals);
    match = match && agrees;
    checks.push_back({.name = desc.name, .totals = totals, .passed = agrees});
  }
  return checks;
}

class TimingLoop {
 public:
  TimingLoop(const worker::WorkerJob& job, const timing::TimingOptions& options,
             const CandidateLibrary& library, Baseline& baseline, DeviceTensors& tensors,
             DeviceTensors& baseline_outputs, cudaStream_t stream)
      : job_(job),
        options_(options),
        library_(library),
        baseline_(baseline),
        tensors_(tensors),
        baseline_outputs_(baseline_outputs),
        stream_(stream),
        nvml_(0),
        max_clock_mhz_(nvml_.max_sm_clock_mhz().value_or(0)) {
    for (const auto& name : job.candidate_kernels) {
      allowed_.insert(name);
      allowed_functions_.insert(function_name(name));
    }
    audit_rounds_ = timing::audit_rounds(job.seed, options.min_samples);
  }

  // Runs the loop; a Failure when the candidate failed during it.
  std::optional<std::string> run() {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kWarmupCalls; ++i) {
      if (auto failure = sample(true, /*measured=*/false)) return failure;
      if (auto failure = sample(false, /*measured=*/false)) return failure;
    }
    worker::StoppingRule rule{.min_samples = options_.min_samples,
                              .max_samples = options_.max_samples,
                              .target_relative_noise = options_.target_relative_noise};
    double limit_s = 2 * options_.max_seconds;
    for (rounds_ = 0;; ++rounds_) {
      regenerate_inputs(worker::trial_seed(job_.seed, kRoundSeedBase + rounds_));
      bool candidate_first = rounds_ % 2 == 0;
      if (auto failure = sample(candidate_first, true)) return failure;
      if (auto failure = sample(!candidate_first, true)) return failure;
      if (audit_rounds_.contains(rounds_)) audit_round();
      absorb(trace_.collect());
      bool done = worker::should_stop(candidate_.summary(), rule) &&
                  worker::should_stop(baseline_side_.summary(), rule);
      double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (done || elapsed > limit_s) break;
    }
    absorb(trace_.collect());  // work a background thread launched after the last round
    wall_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::nullopt;
  }

  // The loop's part of the reply (the caller adds the output checks).
  void report(timing::TimingReply& reply) const {
    worker::StoppingRule rule{.min_samples = options_.min_samples,
                              .max_samples = options_.max_samples,
                              .target_relative_noise = options_.target_relative_noise};
    auto side = [&](const SideResult& r) {
      auto s = r.summary();
      std::vector<double> clocks = r.clocks;
      double clock = clocks.empty() ? 0 : worker::summarize(clocks).median;
      return timing::TimingSide{
          .stats = worker::make_timing_stats(s, r.dropped_throttled, clock, r.max_kernels,
                                             worker::converged(s, rule)),
          .event_median_ms = worker::summarize(r.event_ms).median,
          .power_capped_samples = r.power_capped,
          .samples_without_gpu_work = r.no_gpu_work};
    };
    reply.candidate = side(candidate_);
    reply.baseline = side(baseline_side_);
    reply.baseline_description = baseline_.describe();
    reply.kernels = {kernels_seen_.begin(), kernels_seen_.end()};
    reply.foreign_kernels = {foreign_.begin(), foreign_.end()};
    reply.streams = stream_rule_.summary();
    reply.blocking_kernel = use_blocker_;
    reply.rounds = rounds_;
    reply.max_sm_clock_mhz = max_clock_mhz_;
    reply.clocks_read = nvml_.available();
    reply.l2_flush_bytes = flusher_.bytes();
    reply.launches = launch_records();
    reply.l2_persistence = l2_persistence_;
    reply.wall_seconds = wall_seconds_;
  }

  // The first audited round whose outputs differed from the library's, with its checks.
  const std::optional<std::pair<int, std::vector<timing::TimedOutputCheck>>>& failed_audit() const {
    return failed_audit_;
  }
  int audits() const { return audits_; }
  std::optional<std::string> kernel_set_breach() const { return kernel_sets_.breach(); }

  // What run() did to keep data in L2 across the flush (empty: nothing).
  const std::string& l2_persistence() const { return l2_persistence_; }

  const std::set<std::string>& foreign_kernels() const { return foreign_; }
  const worker::StreamRule& stream_rule() const { return stream_rule_; }

 private:
  // Outside the timed windows: the round's outputs of both sides on the same inputs.
  void audit_round() {
    ++audits_;
    bool match = true;
    auto checks = compare_round(job_, tensors_, baseline_outputs_, stream_, match);
    if (!match && !failed_audit_) failed_audit_.emplace(rounds_, std::move(checks));
  }

  void regenerate_inputs(std::uint64_t seed) {
    tensors_.draw_inputs(job_, seed, stream_);
    baseline_.derive_inputs(tensors_.inputs(), stream_);
  }

  std::optional<std::string> sample(bool candidate, bool measured) {
    Sample s{.window = next_window_++, .candidate = candidate};
    flusher_.flush(stream_);
    // Not for warm-up calls: a first call may load modules, which waits for the GPU.
    bool blocked = use_blocker_ && measured;
    if (blocked) blocker_.block(stream_);
    trace_.begin_window(s.window, candidate);
    if (candidate) candidate_call_of_window_[s.window] = candidate_calls_++;
    timer_.start(stream_);
    std::optional<util::Error> raised;
    // The set-aside as the trusted side left it (the driver or a library may keep one of its
    // own, e.g. 11,796,480 bytes on an H200 after cuDNN ran): only a change inside run() counts.
    const size_t set_aside_before = persisting_set_aside();
    if (candidate) {
      raised = library_.call(args_, stream_);
    } else {
      baseline_.run(tensors_.inputs(), baseline_outputs_.outputs(), stream_);
    }
    timer_.stop(stream_);
    trace_.end_window();
    blocker_.release();
    std::string device_error;
    {
      Watchdog watchdog(job_.limits.call_timeout,
                        candidate ? "a timed run()" : "a timed baseline call");
      device_error = synchronize_device();
    }
    if (raised) return "run() raised during timing: " + raised->message;
    if (!device_error.empty()) return "GPU failure during timing: " + device_error;
    if (candidate) check_l2_persistence(set_aside_before);
    if (blocked && blocker_.timed_out()) {
      use_blocker_ = false;  // run() waits for the GPU itself: measure without the blocker
      s.discarded = true;
    }
    s.event_ms = timer_.elapsed_ms();
    auto reasons = nvml_.clock_event_reasons();
    auto clock = nvml_.sm_clock_mhz();
    s.sm_clock_mhz = clock.value_or(0);
    s.power_capped = reasons && (*reasons & kPowerCapReason) != 0;
    s.throttled =
        (reasons && (*reasons & kThrottleReasons) != 0) ||
        (clock && max_clock_mhz_ > 0 && *clock < options_.throttle_clock_ratio * max_clock_mhz_);
    if (!measured) s.discarded = true;
    pending_.push_back(s);
    return std::nullopt;
  }

  // A set-aside for persisting L2 lines (cudaLimitPersistingL2CacheSize) or a persisting access
  // policy window on the caller's stream survives the L2 flush between samples: noted for the
  // FORBIDDEN reply, and reset so the next sample starts from a cold L2 again.
  static size_t persisting_set_aside() {
    size_t set_aside = 0;
    if (cudaDeviceGetLimit(&set_aside, cudaLimitPersistingL2CacheSize) != cudaSuccess)
      set_aside = 0;
    cudaGetLastError();
    return set_aside;
  }

  void check_l2_persistence(size_t set_aside_before) {
    const size_t set_aside = persisting_set_aside();
    if (set_aside > set_aside_before) {
      note_l2_persistence(
          fmt::format("cudaLimitPersistingL2CacheSize was raised to {} bytes (from {})", set_aside,
                      set_aside_before));
    }
    cudaStreamAttrValue value{};
    if (cudaStreamGetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &value) ==
            cudaSuccess &&
        value.accessPolicyWindow.num_bytes > 0) {
      note_l2_persistence(fmt::format("the caller's stream got an access policy window of {} bytes",
                                      value.accessPolicyWindow.num_bytes));
      cudaStreamAttrValue cleared{};
      cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &cleared);
    }
    if (!l2_persistence_.empty()) {
      cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, set_aside_before);
      cudaCtxResetPersistingL2Cache();
    }
    cudaGetLastError();  // none of these may leave an error for the next call to find
  }

  void note_l2_persistence(const std::string& what) {
    if (l2_persistence_.find(what) != std::string::npos) return;
    l2_persistence_ += (l2_persistence_.empty() ? "" : "; ") + what;
  }

  std::vector<timing::LaunchRecord> launch_records() const {
    std::vector<timing::LaunchRecord> out;
    for (const auto& [name, l] : launched_) {
      out.push_back({.name = name,
                     .resources = LaunchResources{.launches = launch_counts_.at(name),
                                                  .registers_per_thread = l.registers_per_thread,
                                                  .static_shared_bytes = l.static_shared_bytes,
                                                  .dynamic_shared_bytes = l.dynamic_shared_bytes,
                                                  .grid = l.grid,
                                                  .block = l.block,
                                                  .cluster = l.cluster}});
    }
    return out;
  }

  void absorb(const std::map<int, WindowActivity>& activity) {
    // Every attributed window, including one whose sample was absorbed already (late work).
    for (const auto& [window, work] : activity) {
      stream_rule_.add_call(work.candidate, work.streams);
      if (auto call = candidate_call_of_window_.find(window);
          work.candidate && call != candidate_call_of_window_.end()) {
        std::set<std::string> kernels;
        for (const auto& name : work.kernel_names) kernels.insert(function_name(name));
        kernel_sets_.add_call(call->second, kernels);
      }
    }
    // A candidate call with no activity at all launched nothing: that is a call's kernel set too.
    for (const auto& s : pending_) {
      if (s.candidate && !activity.contains(s.window))
        kernel_sets_.add_call(candidate_call_of_window_.at(s.window), {});
    }
    for (const auto& s : pending_) {
      auto found = activity.find(s.window);
      const WindowActivity* work = found == activity.end() ? nullptr : &found->second;
      if (s.candidate && work != nullptr) {
        for (const auto& launch : work->launches) {
          launched_[launch.name] = launch;
          ++launch_counts_[launch.name];
          if (launch.persisting_window_bytes > 0) {
            note_l2_persistence(
                fmt::format("{} launched with an access policy window of {} bytes "
                            "marked persisting",
                            function_name(launch.name), launch.persisting_window_bytes));
          }
        }
        for (const auto& name : work->kernel_names) {
          kernels_seen_.insert(name);
          if (!allowed_.empty() && allowed_.count(name) == 0 &&
              allowed_functions_.count(function_name(name)) == 0)
            foreign_.insert(name);
        }
      }
      if (s.discarded) continue;
      SideResult& side = s.candidate ? candidate_ : baseline_side_;
      if (s.throttled) {
        ++side.dropped_throttled;
        continue;
      }
      if (s.power_capped) ++side.power_capped;
      if (work == nullptr || work->last_end_ns <= work->first_start_ns) {
        ++side.no_gpu_work;  // nothing traced: fall back to the events
        side.span_ms.push_back(s.event_ms);
      } else {
        side.span_ms.push_back(work->span_ms());
        side.max_kernels = std::max(side.max_kernels, work->kernels);
      }
      side.event_ms.push_back(s.event_ms);
      if (s.sm_clock_mhz > 0) side.clocks.push_back(s.sm_clock_mhz);
    }
    pending_.clear();
  }

  const worker::WorkerJob& job_;
  const timing::TimingOptions& options_;
  const CandidateLibrary& library_;
  Baseline& baseline_;
  DeviceTensors& tensors_;
  DeviceTensors& baseline_outputs_;
  cudaStream_t stream_;
  std::vector<DLTensor*> args_ = tensors_.arguments();
  NvmlDevice nvml_;
  int max_clock_mhz_;
  L2Flusher flusher_;
  BlockingKernel blocker_;
  bool use_blocker_ = true;
  EventTimer timer_;
  KernelTrace trace_;
  worker::StreamRule stream_rule_{trace_.stream_id(stream_)};
  int next_window_ = 0;
  int rounds_ = 0;
  double wall_seconds_ = 0;
  std::vector<Sample> pending_;
  SideResult candidate_;
  SideResult baseline_side_;
  std::set<std::string> allowed_;
  std::set<std::string> allowed_functions_;
  std::set<std::string> kernels_seen_;
  std::set<std::string> foreign_;
  std::map<std::string, KernelLaunch> launched_;  // the candidate's kernels, last launch each
  std::map<std::string, std::int64_t> launch_counts_;
  std::string l2_persistence_;
  std::set<int> audit_rounds_;  // timing/timed_call_audit.hpp
  int audits_ = 0;
  std::optional<std::pair<int, std::vector<timing::TimedOutputCheck>>> failed_audit_;
  std::map<int, int> candidate_call_of_window_;  // trace window -> the candidate's call index
  int candidate_calls_ = 0;
  timing::KernelSetRule kernel_sets_;
};

}  // namespace

int run_timing_mode(const worker::WorkerJob& job, bool wait_for_go) {
  const auto* request = std::get_if<timing::TimingRequest>(&job.request);
  PTXBENCH_CHECK(request != nullptr, "the timing mode needs a timing request");
  PTXBENCH_CUDA_CHECK(cudaSetDevice(0));
  CudaStream stream;
  process_parts().mark(part::kContext);
  auto baseline = make_baseline(job, stream.get());
  if (!baseline) {
    print_reply(ReplyStatus::kUnsupported, baseline.error().message);
    return 0;
  }
  process_parts().mark(part::kLibraryReference);
  DeviceTensors tensors =
      expect_value(make_trial_tensors(job, worker::trial_seed(job.seed, kRoundSeedBase),
                                      stream.get(), baseline.value().get()),
                   "timing tensors");
  DeviceTensors baseline_outputs = expect_value(DeviceTensors::allocate(job), "baseline outputs");
  process_parts().mark(part::kInputs);
  auto library = CandidateLibrary::open(job.library);
  if (!library) {
    print_reply(ReplyStatus::kRuntimeError, library.error().message);
    return 0;
  }
  process_parts().mark(part::kModuleLoad);
  timing::TimingReply reply;
  auto host_memory = guard_host_memory(job);
  reply.host_memory_budget_bytes = job.limits.host_memory_budget_bytes;
  TimingLoop loop(job, request->options, library.value(), *baseline.value(), tensors,
                  baseline_outputs, stream.get());
  if (wait_for_go) {
    // Started ahead of its turn: everything is ready; the GPU is ours once "go" comes.
    print_reply(ReplyStatus::kOk, "ready", nlohmann::json{{"ready", true}});
    std::string go;
    if (!std::getline(std::cin, go) || go != "go") return 0;
    process_parts().mark(part::kGpuWait);
  }
  DeviceMemoryCap cap;  // after the harness's own allocations
  if (job.device_memory_limit_bytes > 0) cap = DeviceMemoryCap(job.device_memory_limit_bytes);
  std::optional<std::string> failure;
  try {
    failure = loop.run();
  } catch (const std::exception& e) {
    failure = std::string("during timing: ") + e.what();
  }
  if (failure) {
    print_reply(ReplyStatus::kRuntimeError, *failure, to_json(reply));
    return 0;
  }
  process_parts().mark(part::kTimedSamples);
  loop.report(reply);
  bool match = true;
  reply.output_checks = compare_round(job, tensors, baseline_outputs, stream.get(), match);
  process_parts().mark(part::kComparison);
  if (match && loop.failed_audit()) {  // an audited round differed where the last did not
    match = false;
    reply.output_checks = loop.failed_audit()->second;
    for (auto& check : reply.output_checks)
      check.name += fmt::format(" (audited timed round {})", loop.failed_audit()->first + 1);
  }
  reply.outputs_match = match;
  std::string breaches;  // both ABI breaches are reported when both happened
  if (!loop.foreign_kernels().empty()) {
    std::string names;
    for (const auto& name : loop.foreign_kernels())
      names += (names.empty() ? "" : ", ") + function_name(name);
    breaches = "run() launched kernels that are not the candidate's own: " + names;
  }
  if (loop.stream_rule().violated())
    breaches += (breaches.empty() ? "" : "; ") + loop.stream_rule().message();
  if (auto breach = loop.kernel_set_breach()) breaches += (breaches.empty() ? "" : "; ") + *breach;
  if (!loop.l2_persistence().empty()) {
    breaches += std::string(breaches.empty() ? "" : "; ") +
                "run() kept data persisting in L2 across the flush between timed calls: " +
                loop.l2_persistence();
  }
  if (!breaches.empty()) {
    print_reply(ReplyStatus::kForbidden, breaches, to_json(reply));
    return 0;
  }
  print_reply(ReplyStatus::kOk, "", to_json(reply));
  return 0;
}

}  // namespace ptxbench::eval::gpu
