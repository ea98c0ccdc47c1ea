#include "ptxbench/eval/gpu_pipeline/worker_gpu_stages.hpp"
#include "ptxbench/util/timestamps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <future>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/eval/correctness/correctness_judgement.hpp"
#include "ptxbench/eval/correctness/input_seed.hpp"
#include "ptxbench/eval/kernel_name.hpp"
#include "ptxbench/eval/proof/dynamic_sass.hpp"
#include "ptxbench/eval/proof/ncu_counts.hpp"
#include "ptxbench/eval/sanitize/sanitizer.hpp"
#include "ptxbench/eval/timing/speed_of_light.hpp"
#include "ptxbench/eval/timing/timing_judgement.hpp"
#include "ptxbench/eval/worker/exchange.hpp"
#include "ptxbench/task/unseen_workloads.hpp"

namespace ptxbench::eval::gpu_pipeline {
// The stages' judgements and the worker protocol they speak are declared in eval::worker.
using namespace ptxbench::eval::worker;  // NOLINT(google-build-using-namespace)

namespace {

using Clock = std::chrono::steady_clock;

using util::seconds_since;

std::uint64_t exchange_bytes(const WorkerJob& job) {
  std::uint64_t bytes = 0;
  for (const auto& o : job.outputs) bytes += o.bytes();
  return bytes * static_cast<std::uint64_t>(job.trials);
}

// Consecutive jobs of [first, last) whose outputs fit the exchange budget (a job larger than it
// goes alone).
std::vector<std::vector<std::size_t>> chunk_jobs(const std::vector<WorkerJob>& jobs,
                                                 std::uint64_t budget, std::size_t first,
                                                 std::size_t last) {
  std::vector<std::vector<std::size_t>> chunks;
  std::uint64_t used = 0;
  for (std::size_t j = first; j < last; ++j) {
    std::uint64_t bytes = exchange_bytes(jobs[j]);
    if (chunks.empty() || used + bytes > budget) {
      chunks.emplace_back();
      used = 0;
    }
    chunks.back().push_back(j);
    used += bytes;
  }
  return chunks;
}

}  // namespace

std::filesystem::path default_baseline_cache_dir() {
  if (const char* dir = std::getenv("PTXBENCH_CACHE_DIR"); dir != nullptr && *dir != '\0') {
    return std::filesystem::path(dir) / "baselines";
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::filesystem::path(xdg) / "ptxbench" / "baselines";
  }
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr ? home : "/tmp") / ".cache" / "ptxbench" /
         "baselines";
}

// The stages of one candidate: each returns false when the chain stops there.
struct WorkerGpuStages::Run {
  WorkerGpuStages& self;
  const task::Task& task;
  const CompiledCandidate& candidate;
  Evaluation& e;
  std::vector<WorkerJob> jobs;  // the shown workloads, then the unseen ones
  std::size_t shown = 0;        // how many of `jobs` are shown workloads
  std::size_t headline = 0;
  bool unproven = false;  // the proof fell short only for want of a measurement

  WorkerCall call(std::string mode, std::optional<std::string> stdin_text,
                  std::chrono::milliseconds timeout, Trust trust) const {
    WorkerCall made{.mode = std::move(mode),
                    .jobs_text = std::move(stdin_text),
                    .timeout = timeout,
                    .trust = trust,
                    .env = self.options_.worker_env};
    // Every worker reads the baseline algorithm cache (a sandbox shows it no other folder of the
    // host); only a trusted one, which runs no candidate code, may write it: a candidate must not
    // choose the library's algorithm for the next candidate.
    if (self.cache_ready_) {
      (trust == Trust::kTrusted ? made.write_paths : made.read_paths)
          .push_back(self.options_.cache_dir);
    }
    return made;
  }

  void fail(Stage stage, Verdict verdict, const std::string& message) {
    auto& record = e.stage(stage);
    record.status = StageStatus::kFailed;
    record.message = message;
    e.verdict = verdict;
    e.message = message;
  }

  // One untrusted `worker candidate` run of one workload, one trial, nothing handed over: what
  // the sanitizer (smallest workload) and ncu (the probe's workload) wrap.
  struct SmallRun {
    std::vector<std::string> argv;
    std::string stdin_text;
    std::vector<std::filesystem::path> read_paths;  // the baseline cache (derived inputs)
  };
  SmallRun single_candidate_run(const task::Workload& workload) const {
    WorkerJob job = self.configure(make_job(task, workload), candidate);
    job.trials = 1;
    job.exchange_dir.clear();  // the wrapped run hands nothing over
    // The tools' memory grows after the worker's setup: no host-memory limit here.
    job.limits.host_memory_budget_bytes = 0;
    job.limits.call_timeout =
        std::chrono::duration_cast<std::chrono::milliseconds>(self.options_.candidate_timeout);
    SmallRun run{.argv = {self.options_.worker.string(), "candidate"},
                 .stdin_text = format_jobs({job})};
    if (self.cache_ready_) run.read_paths.push_back(self.options_.cache_dir);
    return run;
  }

  // The sanitizer's tools around one small run of the candidate (no Evaluation touched: it runs
  // beside the correctness check).
  struct Sanitized {
    bool enabled = false;
    SanitizerReport report;
    std::vector<std::string> own;  // the candidate's kernels
    std::string harness_kernel_substring;
    double seconds = 0;
  };
  Sanitized run_sanitizer_tools(std::shared_ptr<const std::atomic<bool>> stop,
                                std::shared_ptr<const std::atomic<bool>> beside_running) const {
    Sanitized out{.enabled = self.options_.sanitize};
    if (!out.enabled) return out;
    auto start = Clock::now();
    SmallRun small = single_candidate_run(smallest_workload(task));
    for (const auto& kernel : candidate.sass.kernels) out.own.push_back(kernel.name);
    SanitizerRequest request{.compute_sanitizer = self.options_.compute_sanitizer,
                             .program_argv = std::move(small.argv),
                             .program_stdin = std::move(small.stdin_text),
                             .env = self.options_.worker_env,
                             .read_paths = std::move(small.read_paths),
                             .racecheck_timeout = self.options_.racecheck_timeout,
                             .stop = std::move(stop),
                             .beside_running = std::move(beside_running)};
    request.harness_kernel_substring = harness_kernel_substring(jobs.front().op_type, out.own);
    out.harness_kernel_substring = request.harness_kernel_substring;
    out.report = run_sanitizer(*self.runner_, request);
    out.seconds = seconds_since(start);
    return out;
  }

  bool judge_sanitize(const Sanitized& sanitized) {
    auto& record = e.stage(Stage::kSanitize);
    if (!sanitized.enabled) {
      record.status = StageStatus::kNotRun;
      record.message = "disabled";
      return true;
    }
    const SanitizerReport& report = sanitized.report;
    record.seconds = sanitized.seconds;
    record.message = report.message();
    if (report.found_errors()) {
      // Errors located in a kernel the candidate did not build (a library's) say first of all
      // that such a kernel ran inside run(): library use, caught here before the timing trace.
      // The harness's own library kernels (inputs derived before run()) are not the candidate's.
      auto foreign = library_kernels_in_errors(report, sanitized.own, compile::kSourceFileName);
      auto charged = kernels_not_from_harness(foreign, sanitized.harness_kernel_substring);
      if (!charged.empty()) {
        fail(Stage::kSanitize, Verdict::kForbidden,
             fmt::format("a kernel not built from the candidate ran inside run(): {}\n{}",
                         fmt::join(charged, ", "), report.message()));
        return false;
      }
      if (foreign.empty()) {
        fail(Stage::kSanitize, Verdict::kSanitizerError, report.message());
        return false;
      }
      record.status = StageStatus::kNotChecked;
      record.message = fmt::format(
          "not checked: the errors lie only in the harness's own kernels that derive the inputs "
          "before run() ({}), not charged to the candidate\n{}",
          fmt::join(foreign, ", "), report.message());
      return true;
    }
    if (auto unfinished = report.not_checked(); !unfinished.empty()) {
      record.status = StageStatus::kNotChecked;
      record.message = fmt::format("not checked: {} did not finish\n{}",
                                   fmt::join(unfinished, ", "), report.message());
      return true;
    }
    record.status = StageStatus::kPassed;
    return true;
  }

  // Judges jobs [first, last) chunk by chunk into e.workloads. Shown workloads stop at the first
  // failing chunk (the stage fails with its verdict); unseen ones are all judged, failures
  // recorded, and their judge's messages, which may name sizes, replaced.
  bool judge_range(std::size_t first, std::size_t last, bool unseen, Clock::time_point start) {
    std::vector<bool> headline_flags;
    for (const auto& w : task.workloads) headline_flags.push_back(w.headline);
    headline_flags.resize(jobs.size(), false);
    std::filesystem::path root =
        self.options_.exchange_root.empty() ? default_exchange_root() : self.options_.exchange_root;
    for (const auto& chunk : chunk_jobs(jobs, self.options_.max_exchange_bytes, first, last)) {
      ExchangeDir exchange(root);
      std::vector<WorkerJob> chunk_jobs_list;
      std::vector<bool> chunk_headline;
      for (std::size_t j : chunk) {
        chunk_jobs_list.push_back(jobs[j]);
        chunk_jobs_list.back().exchange_dir = exchange.path();
        chunk_headline.push_back(headline_flags[j]);
      }
      WorkerCall candidate_call = call("candidate", format_jobs(chunk_jobs_list),
                                       self.options_.candidate_timeout, Trust::kUntrusted);
      candidate_call.write_paths.push_back(exchange.path());
      WorkerOutcome ran = call_worker(*self.runner_, self.options_.worker, candidate_call);
      if (!ran.ok() && unseen && ran.verdict != Verdict::kInternalError) {
        for (std::size_t j : chunk) {
          e.workloads.push_back(WorkloadResult{.workload = jobs[j].workload,
                                               .unseen = true,
                                               .status = ran.verdict,
                                               .message = "hidden workload"});
        }
        continue;
      }
      if (!ran.ok()) {
        e.stage(Stage::kCorrectness).seconds = seconds_since(start);
        fail(Stage::kCorrectness, ran.verdict, ran.message);
        return false;
      }
      std::vector<WorkerJob> judge_jobs = chunk_jobs_list;
      for (auto& job : judge_jobs) job.request = correctness::JudgeRequest{};
      WorkerCall judge_call =
          call("judge", format_jobs(judge_jobs), self.options_.judge_timeout, Trust::kTrusted);
      judge_call.write_paths.push_back(exchange.path());
      WorkerOutcome judged = call_worker(*self.runner_, self.options_.worker, judge_call);
      if (!judged.ok()) {
        e.stage(Stage::kCorrectness).seconds = seconds_since(start);
        fail(Stage::kCorrectness, Verdict::kInternalError, "judge: " + judged.message);
        return false;
      }
      auto ran_reply = correctness::candidate_reply_from_json(ran.reply->body);
      auto judged_reply = correctness::judge_reply_from_json(judged.reply->body);
      if (!ran_reply || !judged_reply) {
        e.stage(Stage::kCorrectness).seconds = seconds_since(start);
        fail(Stage::kCorrectness, Verdict::kInternalError,
             !ran_reply ? ran_reply.error().message : judged_reply.error().message);
        return false;
      }
      CorrectnessJudgement judgement =
          judge_correctness(chunk_jobs_list, chunk_headline, *ran_reply, *judged_reply);
      for (auto& w : judgement.workloads) {
        w.unseen = unseen;
        e.workloads.push_back(std::move(w));
      }
      if (judgement.verdict != Verdict::kPassed && !unseen) {
        e.stage(Stage::kCorrectness).seconds = seconds_since(start);
        fail(Stage::kCorrectness, judgement.verdict, judgement.message);
        return false;
      }
    }
    return true;
  }

  bool correctness() {
    auto start = Clock::now();
    if (!judge_range(0, shown, false, start)) return false;
    if (shown < jobs.size()) {
      if (!judge_range(shown, jobs.size(), true, start)) return false;
      const auto policy = self.options_.unseen;
      e.generalisation = correctness::summarise(e.workloads, policy);
      const WorkloadResult* failed = correctness::first_unseen_failure(e.workloads);
      if (failed != nullptr && policy == correctness::UnseenPolicy::kRequire) {
        e.stage(Stage::kCorrectness).seconds = seconds_since(start);
        fail(Stage::kCorrectness, failed->status,
             correctness::hidden_failure_message(*e.generalisation, *failed));
        return false;
      }
    }
    auto& record = e.stage(Stage::kCorrectness);
    record.status = StageStatus::kPassed;
    record.seconds = seconds_since(start);
    record.message =
        task.tolerance.rule == task::CorrectnessRule::kAsAccurateAsLibrary
            ? fmt::format(
                  "{} workloads x {} trials as accurate as {} against the high-precision "
                  "reference (docs/correctness.md)",
                  shown, self.options_.trials, task.baseline)
            : fmt::format("{} workloads x {} trials within atol={:g}, rtol={:g} of {}", shown,
                          self.options_.trials, task.tolerance.atol, task.tolerance.rtol,
                          task.baseline);
    if (e.generalisation)
      record.message +=
          fmt::format("; hidden workloads: {} of {} correct ({})", e.generalisation->unseen_passed,
                      e.generalisation->unseen_total, e.generalisation->policy);
    return true;
  }

  // The probe (and the ncu fallback) on the headline workload.
  struct Probed {
    bool enabled = false;
    std::vector<KernelExecution> kernels;
    double seconds = 0;
  };
  Probed run_probe_tools() const {
    Probed out{.enabled = self.options_.prove_execution};
    if (!out.enabled) return out;
    auto start = Clock::now();
    ProbeInvocation invocation{.worker_argv = {self.options_.worker.string(), "probe"},
                               .job = jobs[headline],
                               .cubin = candidate.cubin,
                               .timeout = self.options_.probe_timeout,
                               .env = self.options_.worker_env};
    if (self.cache_ready_) invocation.read_paths.push_back(self.options_.cache_dir);
    if (!kernels_to_probe(candidate.sass).empty()) {
      out.kernels =
          executions_from_probe(run_probe(*self.runner_, invocation), candidate.sass, e.arch);
      if (!self.options_.ncu.empty()) {
        // The probe's workload, so both counts share the task FLOPs they are judged against.
        SmallRun small = single_candidate_run(task.workloads[headline]);
        NcuRequest ncu{.ncu = self.options_.ncu,
                       .program_argv = std::move(small.argv),
                       .program_stdin = std::move(small.stdin_text),
                       .env = self.options_.worker_env,
                       .read_paths = std::move(small.read_paths),
                       .timeout = self.options_.ncu_timeout};
        fill_inconclusive_with_ncu(*self.runner_, ncu, candidate.sass, e.arch, out.kernels);
      }
    }
    out.seconds = seconds_since(start);
    return out;
  }

  // Never stops the chain: a correct kernel is timed whether or not its instructions are proven.
  void judge_proof(const Probed& probed) {
    auto& record = e.stage(Stage::kDynamicSass);
    if (!probed.enabled) {
      record.status = StageStatus::kNotRun;
      record.message = "disabled";
      return;
    }
    auto requested_it = task.requested.find(e.arch);
    std::vector<std::string> requested =
        requested_it == task.requested.end() ? std::vector<std::string>{} : requested_it->second;
    ExecutionProof proof =
        judge_execution(candidate.sass, probed.kernels, requested, task.flops(task.headline()));
    unproven = !proof.all_requested_substantial() && !proof.requested_measured_short;
    apply_execution_proof(proof, e);
    record.seconds = probed.seconds;
    record.message = proof.message;
    record.status = proof.all_requested_substantial() ? StageStatus::kPassed : StageStatus::kFailed;
  }

  // One `worker time` process per timed workload, so each starts on a clean GPU context; the
  // first workload that fails fails the stage. The headline is among them and stays the
  // evaluation's figure; the stage message adds the geometric mean when more were timed.
  bool time() {
    auto& record = e.stage(Stage::kTiming);
    if (!self.options_.time) {
      record.status = StageStatus::kNotRun;
      record.message = "disabled";
      return true;
    }
    auto start = Clock::now();
    const std::vector<std::size_t> timed = self.options_.timed_workloads.select(task);
    const bool several = timed.size() > 1;
    std::string headline_message;
    for (std::size_t j : timed) {
      const std::string& name = jobs[j].workload;
      const std::string prefix = several ? fmt::format("timing {}: ", name) : "timing: ";
      WorkerJob job = jobs[j];
      job.request = timing::TimingRequest{.options = self.options_.timing};
      WorkerOutcome outcome = call_worker(
          *self.runner_, self.options_.worker,
          call("time", format_jobs({job}), self.options_.timing_timeout, Trust::kUntrusted));
      e.stage(Stage::kTiming).seconds = seconds_since(start);
      if (!outcome.ok()) {
        fail(Stage::kTiming, outcome.verdict, prefix + outcome.message);
        return false;
      }
      auto reply = timing::timing_reply_from_json(outcome.reply->body);
      if (!reply) {
        fail(Stage::kTiming, Verdict::kInternalError, prefix + reply.error().message);
        return false;
      }
      TimingJudgement judged = judge_timing(*reply, task.flops(task.workloads[j]));
      if (judged.verdict != Verdict::kPassed) {
        fail(Stage::kTiming, judged.verdict, prefix + judged.message);
        return false;
      }
      if (j == headline) {
        headline_message = judged.message;
        apply_launches(judged.launches);
      }
      for (auto& w : e.workloads) {
        if (w.workload != name) continue;
        w.candidate = judged.candidate;
        w.baseline = judged.baseline;
        w.speedup = judged.speedup;
        w.tflops = judged.tflops;
        w.speed_of_light = bound_of(jobs[j], task.flops(task.workloads[j]), *judged.candidate);
      }
    }
    e.stage(Stage::kTiming).status = StageStatus::kPassed;
    e.stage(Stage::kTiming).message =
        several ? fmt::format("{}: {}; {} workloads timed, geometric-mean speedup {:.3f}x",
                              jobs[headline].workload, headline_message, timed.size(),
                              geometric_mean_speedup(e.workloads).value_or(0))
                : headline_message;
    return true;
  }

  // The headline's launch records beside ptxas' figures, per kernel of the cubin.
  void apply_launches(const std::vector<std::pair<std::string, LaunchResources>>& launches) {
    for (const auto& [name, resources] : launches) {
      const KernelName launched(name);
      for (auto& kernel : e.kernels) {
        if (names_one_of(KernelName(kernel.name), {launched})) kernel.launched = resources;
      }
    }
  }

  std::optional<SpeedOfLight> bound_of(const WorkerJob& job, double flops,
                                       const TimingStats& candidate_time) const {
    if (!self.info_reply_) return std::nullopt;
    const InfoReply& info = *self.info_reply_;
    double bytes = 0;
    for (const auto& t : job.inputs) bytes += static_cast<double>(t.bytes());
    for (const auto& t : job.outputs) bytes += static_cast<double>(t.bytes());
    return speed_of_light({.flops = flops,
                           .bytes = bytes,
                           .sm_count = info.sm_count,
                           .sm_clock_mhz = candidate_time.sm_clock_mhz,
                           .arch = e.arch,
                           .gpu_name = info.name,
                           .candidate_ms = candidate_time.median_ms});
  }

  // Stages a failed one left undecided are "not reached"; one that ran keeps its record.
  void skip_after(Stage failed) {
    for (auto s : {Stage::kSanitize, Stage::kCorrectness, Stage::kDynamicSass, Stage::kTiming}) {
      auto& record = e.stage(s);
      if (s <= failed || record.status != StageStatus::kSkipped) continue;
      record.message = fmt::format("not reached: {} failed", to_string(failed));
    }
  }

  // The sanitizer's run of the candidate overlaps the correctness check: neither is timed, so
  // together they cost the longer of the two rather than their sum (docs/gpu-engine.md, "Order
  // and overlap"). A tool's deadline waits while correctness still runs: it delays nothing then.
  // The verdict keeps the order of the stages: a sanitizer finding first, then correctness.
  // Neither needs the GPU alone. Returns whether the exclusive stages follow.
  bool shared_stages() {
    auto stop = std::make_shared<std::atomic<bool>>(false);
    auto correctness_running = std::make_shared<std::atomic<bool>>(true);
    auto sanitized = std::async(std::launch::async, [this, stop, correctness_running] {
      return run_sanitizer_tools(stop, correctness_running);
    });
    bool correct = false;
    try {
      correct = correctness();
    } catch (...) {
      correctness_running->store(false);
      stop->store(true);
      throw;
    }
    correctness_running->store(false);
    // Code that hung in the correctness run hangs under the tools too: their deadlines are not
    // waited out (the stage says "not checked", stopped).
    if (!correct && e.verdict == Verdict::kTimeout) stop->store(true);
    const Sanitized sanitizer_result = sanitized.get();
    if (!judge_sanitize(sanitizer_result)) {
      skip_after(Stage::kSanitize);
      return false;
    }
    if (!correct) {
      skip_after(Stage::kCorrectness);
      return false;
    }
    return true;
  }

  // The proof and timing, each with the GPU to itself (the probe's CUPTI session and ncu need it
  // idle), then the verdict.
  void exclusive_stages() {
    judge_proof(run_probe_tools());
    if (!time()) return;
    bool proven = e.find_stage(Stage::kDynamicSass)->status != StageStatus::kFailed;
    e.verdict = proven ? Verdict::kPassed : Verdict::kInstructionsNotExecuted;
    // Verdicts are fixed: an unmeasurable proof keeps INSTRUCTIONS_NOT_EXECUTED but says so.
    e.message = proven     ? e.stage(Stage::kTiming).message
                : unproven ? "correct, but the execution of the requested instruction families "
                             "could not be proven (nothing measured them): " +
                                 e.stage(Stage::kDynamicSass).message
                           : "correct, but " + e.stage(Stage::kDynamicSass).message;
  }
};

WorkerGpuStages::WorkerGpuStages(WorkerGpuStagesOptions options,
                                 std::shared_ptr<util::ProcessRunner> runner)
    : options_(std::move(options)), runner_(std::move(runner)) {
  if (options_.cache_dir.empty()) options_.cache_dir = default_baseline_cache_dir();
  // Made here, by the judging process: a sandbox binds only folders that exist.
  std::error_code made;
  std::filesystem::create_directories(options_.cache_dir, made);
  cache_ready_ = !made;
}

bool WorkerGpuStages::available(arch::Arch arch, std::string& why) {
  if (!info_) {
    info_ = call_worker(*runner_, options_.worker,
                        WorkerCall{.mode = "info",
                                   .timeout = options_.info_timeout,
                                   .trust = Trust::kTrusted,
                                   .env = options_.worker_env});
  }
  if (!info_->reply || info_->reply->status != ReplyStatus::kOk) {
    why = info_->reply ? info_->reply->message : info_->message;
    if (why.empty()) why = "the GPU worker found no usable GPU";
    return false;
  }
  if (!info_reply_) {
    auto parsed = info_reply_from_json(info_->reply->body);
    if (!parsed) {
      why = parsed.error().message;
      return false;
    }
    info_reply_ = std::move(*parsed);
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

WorkerJob WorkerGpuStages::configure(WorkerJob job, const CompiledCandidate& candidate) const {
  job.trials = options_.trials;
  job.library = candidate.shared_object;
  job.cache_dir = options_.cache_dir;
  job.device_memory_limit_bytes = options_.device_memory_limit_bytes;
  for (const auto& kernel : candidate.sass.kernels) job.candidate_kernels.push_back(kernel.name);
  job.limits = CallLimits{.call_timeout = options_.call_timeout,
                          .host_memory_budget_bytes = options_.host_memory_budget_bytes};
  job.request = correctness::CandidateRequest{};
  return job;
}

std::vector<WorkerJob> WorkerGpuStages::make_jobs(const task::Task& task,
                                                  const CompiledCandidate& candidate) const {
  std::vector<WorkerJob> jobs;
  for (const auto& workload : task.workloads)
    jobs.push_back(configure(make_job(task, workload), candidate));
  return jobs;
}

// The jobs of every judged workload with the verdict's seeds: drawn by the shared phase (and
// recorded), read back from the record by the exclusive one.
WorkerGpuStages::Run WorkerGpuStages::make_run(const task::Task& task,
                                               const CompiledCandidate& candidate,
                                               Evaluation& evaluation) {
  Run run{*this, task, candidate, evaluation, make_jobs(task, candidate)};
  run.shown = run.jobs.size();
  if (options_.unseen != correctness::UnseenPolicy::kOff) {
    for (const auto& workload : task::unseen_workloads(task))
      run.jobs.push_back(configure(make_job(task, workload), candidate));
  }
  if (!evaluation.input_seed) {
    evaluation.input_seed =
        options_.input_seed ? *options_.input_seed : correctness::draw_input_seed();
  }
  for (auto& job : run.jobs)
    job.seed = correctness::workload_input_seed(job.seed, *evaluation.input_seed);
  for (std::size_t j = 0; j < task.workloads.size(); ++j) {
    if (task.workloads[j].headline) run.headline = j;
  }
  return run;
}

bool WorkerGpuStages::run_shared(const task::Task& task, const CompiledCandidate& candidate,
                                 Evaluation& evaluation) {
  if (info_reply_) {
    for (const auto& [key, value] : info_reply_->toolchain) evaluation.toolchain[key] = value;
  }
  evaluation.input_seed.reset();  // drawn for this verdict
  return make_run(task, candidate, evaluation).shared_stages();
}

void WorkerGpuStages::run_exclusive(const task::Task& task, const CompiledCandidate& candidate,
                                    Evaluation& evaluation) {
  make_run(task, candidate, evaluation).exclusive_stages();
}

void WorkerGpuStages::run(const task::Task& task, const CompiledCandidate& candidate,
                          Evaluation& evaluation) {
  if (run_shared(task, candidate, evaluation)) run_exclusive(task, candidate, evaluation);
}

std::optional<DeviceMemory> WorkerGpuStages::device_memory() const {
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
std::uint64_t WorkerGpuStages::shared_memory_need(const task::Task& task) const {
  constexpr std::uint64_t kWorkingSetFactor = 4;
  constexpr std::uint64_t kContextBytes = std::uint64_t{512} << 20;
  std::vector<task::Workload> workloads = task.workloads;
  if (options_.unseen != correctness::UnseenPolicy::kOff) {
    for (auto& workload : task::unseen_workloads(task)) workloads.push_back(std::move(workload));
  }
  std::uint64_t largest = 0;
  for (const auto& workload : workloads) {
    const WorkerJob job = make_job(task, workload);
    std::uint64_t bytes = 0;
    for (const auto& t : job.inputs) bytes += t.bytes();
    for (const auto& t : job.outputs) bytes += t.bytes();
    largest = std::max(largest, bytes);
  }
  return kWorkingSetFactor * largest + 2 * kContextBytes + options_.device_memory_limit_bytes;
}

}  // namespace ptxbench::eval::gpu_pipeline
