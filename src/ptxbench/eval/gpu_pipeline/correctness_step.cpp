// Stage 6 in worker processes: per chunk of workloads, the untrusted `worker candidate` leaves
// the candidate's outputs in an exchange folder and the trusted `worker judge` regenerates the
// inputs, computes the references and compares (correctness_judgement.hpp decides).
#include <fmt/format.h>

#include "ptxbench/eval/correctness/correctness_judgement.hpp"
#include "ptxbench/eval/correctness/generalisation.hpp"
#include "ptxbench/eval/gpu_pipeline/steps.hpp"
#include "ptxbench/eval/gpu_pipeline/warm_judge.hpp"
#include "ptxbench/eval/worker/exchange.hpp"
#include "ptxbench/util/timestamps.hpp"

namespace ptxbench::eval::gpu_pipeline {
namespace {

using Clock = std::chrono::steady_clock;
using worker::Trust;
using worker::WorkerCall;
using worker::WorkerJob;
using worker::WorkerOutcome;

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

// The candidate's and the judge's replies of one chunk, or the failure they make.
struct ChunkReplies {
  WorkerOutcome ran;
  WorkerOutcome judged;
};

ChunkReplies run_chunk(VerdictRun& run, std::vector<WorkerJob>& chunk,
                       const std::filesystem::path& exchange) {
  const auto& options = run.options();
  WorkerCall candidate_call = run.call("candidate", worker::format_jobs(chunk),
                                       options.candidate_timeout, Trust::kUntrusted);
  candidate_call.write_paths.push_back(exchange);
  ChunkReplies replies{.ran = run.call_worker(candidate_call)};
  if (!replies.ran.ok()) return replies;
  std::vector<WorkerJob> judge_jobs = chunk;
  for (auto& job : judge_jobs) {
    job.request = correctness::JudgeRequest{};
    job.reference_cache = run.references;
  }
  WorkerCall judge_call =
      run.call("judge", worker::format_jobs(judge_jobs), options.judge_timeout, Trust::kTrusted);
  judge_call.write_paths.push_back(exchange);
  // Only the trusted judge is shown the reference cache: no candidate process reads it.
  if (run.references.enabled()) judge_call.write_paths.push_back(run.references.dir);
  replies.judged = run.call_worker(judge_call);
  return replies;
}

// Judges jobs [first, last) chunk by chunk into e.workloads. Shown workloads stop at the first
// failing chunk (the stage fails with its verdict); unseen ones are all judged, failures
// recorded, and their judge's messages, which may name sizes, replaced.
bool judge_range(VerdictRun& run, std::size_t first, std::size_t last, bool unseen,
                 Clock::time_point start) {
  const auto& options = run.options();
  auto& e = run.e;
  const std::filesystem::path root =
      options.exchange_root.empty() ? worker::default_exchange_root() : options.exchange_root;
  for (const auto& indices : chunk_jobs(run.jobs, options.max_exchange_bytes, first, last)) {
    worker::ExchangeDir exchange(root);
    std::vector<WorkerJob> chunk;
    std::vector<bool> headline;
    for (std::size_t j : indices) {
      chunk.push_back(run.jobs[j]);
      chunk.back().exchange_dir = exchange.path();
      headline.push_back(j < run.task.workloads.size() && run.task.workloads[j].headline);
    }
    ChunkReplies replies = run_chunk(run, chunk, exchange.path());
    const WorkerOutcome& ran = replies.ran;
    worker::count_process(e.stage(Stage::kCorrectness), ran.cost);
    if (replies.judged.process.started)
      worker::count_process(e.stage(Stage::kCorrectness), replies.judged.cost);
    if (!ran.ok() && unseen && ran.verdict != Verdict::kInternalError) {
      for (const auto& job : chunk) {
        e.workloads.push_back(WorkloadResult{.workload = job.workload,
                                             .unseen = true,
                                             .status = ran.verdict,
                                             .message = "hidden workload"});
      }
      continue;
    }
    if (!ran.ok()) return correctness_failed(run, start, ran.verdict, ran.message);
    if (!replies.judged.ok())
      return correctness_failed(run, start, Verdict::kInternalError,
                                "judge: " + replies.judged.message);
    auto ran_reply = correctness::candidate_reply_from_json(ran.reply->body);
    auto judged_reply = correctness::judge_reply_from_json(replies.judged.reply->body);
    if (!ran_reply || !judged_reply)
      return correctness_failed(
          run, start, Verdict::kInternalError,
          !ran_reply ? ran_reply.error().message : judged_reply.error().message);
    run.reference_counts.hits += judged_reply->reference_cache.hits;
    run.reference_counts.misses += judged_reply->reference_cache.misses;
    if (run.references.enabled()) {
      e.stage(Stage::kCorrectness).reference_cache =
          CacheCounts{.hits = run.reference_counts.hits, .misses = run.reference_counts.misses};
    }
    auto judgement = worker::judge_correctness(chunk, headline, *ran_reply, *judged_reply);
    for (auto& w : judgement.workloads) {
      w.unseen = unseen;
      e.workloads.push_back(std::move(w));
    }
    if (judgement.verdict != Verdict::kPassed && !unseen)
      return correctness_failed(run, start, judgement.verdict, judgement.message);
  }
  return true;
}

std::string passed_message(const VerdictRun& run) {
  const auto& task = run.task;
  const int trials = run.options().trials;
  std::string message =
      task.tolerance.rule == task::CorrectnessRule::kAsAccurateAsLibrary
          ? fmt::format(
                "{} workloads x {} trials as accurate as {} against the high-precision "
                "reference (docs/correctness.md)",
                run.shown, trials, task.baseline)
          : fmt::format("{} workloads x {} trials within atol={:g}, rtol={:g} of {}", run.shown,
                        trials, task.tolerance.atol, task.tolerance.rtol, task.baseline);
  if (const auto& g = run.e.generalisation)
    message += fmt::format("; hidden workloads: {} of {} correct ({})", g->unseen_passed,
                           g->unseen_total, g->policy);
  return message;
}

}  // namespace

bool correctness_failed(VerdictRun& run, Clock::time_point start, Verdict verdict,
                        const std::string& message) {
  run.e.stage(Stage::kCorrectness).seconds = util::seconds_since(start);
  run.fail(Stage::kCorrectness, verdict, message);
  return false;
}

bool correctness_passed(VerdictRun& run, Clock::time_point start) {
  auto& e = run.e;
  if (run.shown < run.jobs.size()) {
    const auto policy = run.options().settings.unseen;
    e.generalisation = correctness::summarise(e.workloads, policy);
    const WorkloadResult* failed = correctness::first_unseen_failure(e.workloads);
    if (failed != nullptr && policy == correctness::UnseenPolicy::kRequire)
      return correctness_failed(run, start, failed->status,
                                correctness::hidden_failure_message(*e.generalisation, *failed));
  }
  auto& record = e.stage(Stage::kCorrectness);
  record.status = StageStatus::kPassed;
  record.seconds = util::seconds_since(start);
  record.message = passed_message(run);
  return true;
}

bool check_correctness_fresh(VerdictRun& run) {
  const auto start = Clock::now();
  if (!judge_range(run, 0, run.shown, false, start)) return false;
  if (run.shown < run.jobs.size() && !judge_range(run, run.shown, run.jobs.size(), true, start))
    return false;
  return correctness_passed(run, start);
}

bool check_correctness(VerdictRun& run) {
  WarmJudge* warm = run.context.warm;
  if (warm == nullptr) {
    run.e.judge = "fresh";
    return check_correctness_fresh(run);
  }
  if (auto off = warm->given_up()) {
    run.e.judge = fmt::format("fresh (the warm judge is off: {})", *off);
    return check_correctness_fresh(run);
  }
  const std::size_t workloads = run.e.workloads.size();
  std::string trouble;
  const bool passed = check_correctness_warm(run, *warm, trouble);
  warm->count_outcome(trouble);
  if (trouble.empty()) return passed;
  // The judge failed, not the candidate: the fresh judges decide this verdict. What the warm
  // attempt cost stays in the stage's parts and processes.
  run.e.workloads.resize(workloads);
  run.reference_counts = {};
  run.e.judge = fmt::format("fresh (the warm judge failed: {})", trouble);
  return check_correctness_fresh(run);
}

}  // namespace ptxbench::eval::gpu_pipeline
