#include "ptxbench/eval/gpu_pipeline/stage_sequence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <future>

#include "ptxbench/eval/cache_folders.hpp"
#include "ptxbench/eval/correctness/input_seed.hpp"
#include "ptxbench/eval/gpu_pipeline/steps.hpp"
#include "ptxbench/eval/gpu_pipeline/timed_window.hpp"
#include "ptxbench/eval/gpu_pipeline/warm_judge.hpp"
#include "ptxbench/eval/task_fingerprint.hpp"
#include "ptxbench/eval/timing/gpu_neighbours.hpp"
#include "ptxbench/task/unseen_workloads.hpp"
#include "ptxbench/util/live_process.hpp"

namespace ptxbench::eval::gpu_pipeline {
namespace {

using worker::WorkerJob;

// The sanitizer's run of the candidate overlaps the correctness check: neither is timed, so
// together they cost the longer of the two rather than their sum (docs/gpu-engine.md, "Order
// and overlap"). A tool's deadline waits while correctness still runs: it delays nothing then.
// The verdict keeps the order of the stages: a sanitizer finding first, then correctness.
// Neither needs the GPU alone. Returns whether the exclusive stages follow.
bool shared_stages(VerdictRun& run) {
  auto stop = std::make_shared<std::atomic<bool>>(false);
  auto correctness_running = std::make_shared<std::atomic<bool>>(true);
  auto sanitized = std::async(std::launch::async, [&run, stop, correctness_running] {
    return run_sanitizer_tools(run, stop, correctness_running);
  });
  bool correct = false;
  try {
    correct = check_correctness(run);
  } catch (...) {
    correctness_running->store(false);
    stop->store(true);
    throw;
  }
  correctness_running->store(false);
  // Code that hung in the correctness run hangs under the tools too: their deadlines are not
  // waited out (the stage says "not checked", stopped).
  if (!correct && run.e.verdict == Verdict::kTimeout) stop->store(true);
  const Sanitized sanitizer_result = sanitized.get();
  if (!apply_sanitize(run, sanitizer_result)) {
    run.skip_after(Stage::kSanitize);
    return false;
  }
  if (!correct) {
    run.skip_after(Stage::kCorrectness);
    return false;
  }
  return true;
}

// The proof and timing, each with the GPU to itself (the probe's CUPTI session and ncu need it
// idle), then the verdict.
void exclusive_stages(VerdictRun& run) {
  apply_proof(run, run_probe_tools(run));
  if (!time_workloads(run)) return;
  auto& e = run.e;
  const bool proven = e.find_stage(Stage::kDynamicSass)->status != StageStatus::kFailed;
  e.verdict = proven ? Verdict::kPassed : Verdict::kInstructionsNotExecuted;
  // Verdicts are fixed: an unmeasurable proof keeps INSTRUCTIONS_NOT_EXECUTED but says so.
  e.message = proven         ? e.stage(Stage::kTiming).message
              : run.unproven ? "correct, but the execution of the requested instruction families "
                               "could not be proven (nothing measured them): " +
                                   e.stage(Stage::kDynamicSass).message
                             : "correct, but " + e.stage(Stage::kDynamicSass).message;
}

}  // namespace

StageSequence::StageSequence(StageSequenceOptions options,
                             std::shared_ptr<util::ProcessRunner> runner)
    : options_(std::move(options)), runner_(std::move(runner)) {
  if (options_.cache_dir.empty()) options_.cache_dir = default_baseline_cache_dir();
  // Made here, by the judging process: a sandbox binds only folders that exist.
  std::error_code made;
  std::filesystem::create_directories(options_.cache_dir, made);
  cache_ready_ = !made;
  if (options_.settings.reference_cache) {
    if (options_.reference_cache_dir.empty())
      options_.reference_cache_dir = default_reference_cache_dir();
    // The judge job names it absolutely ($PTXBENCH_CACHE_DIR may be relative).
    options_.reference_cache_dir = std::filesystem::absolute(options_.reference_cache_dir, made);
    if (!made) std::filesystem::create_directories(options_.reference_cache_dir, made);
    references_ready_ = !made;
  }
  if (options_.settings.mode == JudgeMode::kWarm) {
    // The reference memory is set once the GPU's size is known (available()).
    WarmJudgeOptions warm{.worker = options_.worker, .env = options_.worker_env};
    if (cache_ready_) warm.write_paths.push_back(options_.cache_dir);
    warm_ = std::make_unique<WarmJudge>(std::move(warm), runner_);
  }
  timing_starts_ = std::make_unique<TimingStarts>();
}

StageSequence::~StageSequence() = default;

bool StageSequence::available(arch::Arch arch, std::string& why) {
  if (!info_) {
    info_ = worker::call_worker(*runner_, options_.worker,
                                worker::WorkerCall{.mode = "info",
                                                   .timeout = options_.info_timeout,
                                                   .trust = worker::Trust::kTrusted,
                                                   .env = options_.worker_env});
  }
  if (!info_->reply || info_->reply->status != worker::ReplyStatus::kOk) {
    why = info_->reply ? info_->reply->message : info_->message;
    if (why.empty()) why = "the GPU worker found no usable GPU";
    return false;
  }
  if (!info_reply_) {
    auto parsed = worker::info_reply_from_json(info_->reply->body);
    if (!parsed) {
      why = parsed.error().message;
      return false;
    }
    info_reply_ = std::move(*parsed);
    if (warm_ && options_.settings.reference_cache) {
      const std::uint64_t quarter =
          static_cast<std::uint64_t>(std::max<std::int64_t>(0, info_reply_->memory_bytes)) / 4;
      warm_->set_reference_memory(
          options_.reference_memory_bytes > 0 ? options_.reference_memory_bytes : quarter);
    }
  }
  const auto& want = arch::info(arch);
  int major = info_reply_->cc_major, minor = info_reply_->cc_minor;
  if (major != want.compute_capability_major || minor != want.compute_capability_minor) {
    why = fmt::format("the GPU is {} (sm_{}{}); {} code needs compute capability {}.{}",
                      info_reply_->name, major, minor, want.sm, want.compute_capability_major,
                      want.compute_capability_minor);
    return false;
  }
  return true;
}

std::string StageSequence::identity() {
  // A worker that names no fingerprint (GPU, driver, CUDA, cuBLASLt, cuDNN) names nothing.
  if (!info_reply_ || info_reply_->fingerprint.empty()) return {};
  return info_reply_->fingerprint + "|" + std::to_string(info_reply_->memory_bytes) + " bytes";
}

std::vector<WorkerJob> StageSequence::make_jobs(const task::Task& task,
                                                const CompiledCandidate& candidate) const {
  std::vector<WorkerJob> jobs;
  for (const auto& workload : task.workloads)
    jobs.push_back(configure_job(worker::make_job(task, workload), candidate, options_));
  return jobs;
}

// The jobs of every judged workload with the verdict's seeds: chosen by the engine's front
// (seeded_gpu_stages.hpp; drawn here only when no front chose one) and recorded by the shared
// phase, read back from the record by the exclusive one.
VerdictRun StageSequence::make_run(const task::Task& task, const CompiledCandidate& candidate,
                                   Evaluation& evaluation) {
  VerdictRun run(SequenceContext{.options = options_,
                                 .runner = *runner_,
                                 .info = info_reply_ ? &*info_reply_ : nullptr,
                                 .cache_ready = cache_ready_,
                                 .warm = warm_.get(),
                                 .neighbours = neighbours_.get(),
                                 .neighbours_note = neighbours_note_,
                                 .timing_starts = timing_starts_.get()},
                 task, candidate, evaluation, make_jobs(task, candidate));
  run.shown = run.jobs.size();
  if (options_.settings.unseen != correctness::UnseenPolicy::kOff) {
    for (const auto& workload : task::unseen_workloads(task))
      run.jobs.push_back(configure_job(worker::make_job(task, workload), candidate, options_));
  }
  if (!evaluation.input_seed) evaluation.input_seed = correctness::draw_input_seed();
  for (auto& job : run.jobs)
    job.seed = correctness::workload_input_seed(job.seed, *evaluation.input_seed);
  for (std::size_t j = 0; j < task.workloads.size(); ++j) {
    if (task.workloads[j].headline) run.headline = j;
  }
  // The cache keys a trial's outputs by the task, the GPU and its libraries (identity(): none
  // named, no cache) beside the workload and the trial's seed.
  const std::string gpu = identity();
  if (references_ready_ && !gpu.empty()) {
    run.references = reference_cache::ReferenceCacheRequest{
        .dir = options_.reference_cache_dir, .task = task_fingerprint(task), .gpu = gpu};
  }
  return run;
}

bool StageSequence::run_shared(const task::Task& task, const CompiledCandidate& candidate,
                               Evaluation& evaluation) {
  if (info_reply_) {
    for (const auto& [key, value] : info_reply_->toolchain) evaluation.toolchain[key] = value;
  }
  auto run = make_run(task, candidate, evaluation);
  const bool more = shared_stages(run);
  // The timing processes start now, while the candidate waits for the GPU alone.
  if (more && options_.time && options_.start_timing_early) {
    for (std::size_t j : options_.settings.timed_workloads.select(task)) {
      if (auto started = start_timing_process(run, j))
        timing_starts_->put(&evaluation, j, std::move(started));
    }
  }
  // The parent keeps the folder within its budget after each verdict (the judge only adds).
  if (run.references.enabled())
    reference_cache::evict_references(options_.reference_cache_dir, options_.reference_cache_bytes);
  return more;
}

void StageSequence::run_exclusive(const task::Task& task, const CompiledCandidate& candidate,
                                  Evaluation& evaluation) {
  std::call_once(neighbours_opened_, [this] {
    auto opened = open_gpu_neighbours(options_.device);
    if (opened)
      neighbours_ = *opened;
    else
      neighbours_note_ = "who else used the GPU is not known: " + opened.error().message;
  });
  auto run = make_run(task, candidate, evaluation);
  exclusive_stages(run);
  timing_starts_->drop(&evaluation);  // what an early end left unused
}

void StageSequence::run(const task::Task& task, const CompiledCandidate& candidate,
                        Evaluation& evaluation) {
  if (run_shared(task, candidate, evaluation)) run_exclusive(task, candidate, evaluation);
}

std::optional<DeviceMemory> StageSequence::device_memory() const {
  if (!info_reply_ || info_reply_->memory_bytes <= 0) return std::nullopt;
  return DeviceMemory{.total_bytes = static_cast<std::uint64_t>(info_reply_->memory_bytes),
                      .free_bytes = static_cast<std::uint64_t>(
                          std::max<std::int64_t>(0, info_reply_->free_memory_bytes))};
}

// The shared phase's processes at their largest: the candidate process of one workload or the
// judge's (which holds the inputs, the candidate's outputs read back, the library's outputs and
// the high-precision reference's, wider than the outputs: kWorkingSetFactor times the tensors
// in all), beside the sanitizer's small run; each process also holds a CUDA context. The
// candidate's own allocations are bounded only by device_memory_limit_bytes when it is set.
std::uint64_t StageSequence::shared_memory_need(const task::Task& task) const {
  constexpr std::uint64_t kWorkingSetFactor = 4;
  constexpr std::uint64_t kContextBytes = std::uint64_t{512} << 20;
  std::vector<task::Workload> workloads = task.workloads;
  if (options_.settings.unseen != correctness::UnseenPolicy::kOff) {
    for (auto& workload : task::unseen_workloads(task)) workloads.push_back(std::move(workload));
  }
  std::uint64_t largest = 0;
  for (const auto& workload : workloads) {
    const WorkerJob job = worker::make_job(task, workload);
    std::uint64_t bytes = 0;
    for (const auto& t : job.inputs) bytes += t.bytes();
    for (const auto& t : job.outputs) bytes += t.bytes();
    largest = std::max(largest, bytes);
  }
  return kWorkingSetFactor * largest + 2 * kContextBytes + options_.device_memory_limit_bytes;
}

}  // namespace ptxbench::eval::gpu_pipeline
