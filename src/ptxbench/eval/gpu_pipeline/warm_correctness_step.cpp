// Stage 6 with the warm judge (warm_judge.hpp, correctness/session_protocol.hpp): one candidate
// process runs every trial of every workload, shown then unseen, in the exchange sets the judge
// shares with it; the judge prepares each trial's inputs and references in its own memory and
// compares on the device. The judge prepares the next trial while the candidate runs this one.
// The verdict comes from the same judgement as the fresh path (correctness_judgement.hpp).
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>

#include "ptxbench/eval/correctness/correctness_judgement.hpp"
#include "ptxbench/eval/correctness/generalisation.hpp"
#include "ptxbench/eval/correctness/session_protocol.hpp"
#include "ptxbench/eval/gpu_pipeline/steps.hpp"
#include "ptxbench/eval/gpu_pipeline/warm_judge.hpp"
#include "ptxbench/eval/worker/worker_reply.hpp"
#include "ptxbench/util/live_process.hpp"
#include "ptxbench/util/timestamps.hpp"

namespace ptxbench::eval::gpu_pipeline {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;
namespace session = correctness;

std::string next_session_id() {
  static std::atomic<std::uint64_t> counter{0};
  return fmt::format("{}-{}", ::getpid(), counter++);
}

// One (job, trial) of the session, in the order they run.
struct TrialSlot {
  std::size_t job = 0;
  int trial = 0;
  int set = 0;
};

// What the run of the candidate made of one trial, the judge's view of it, or how it failed.
struct TrialResult {
  session::PrepareReply prepared;
  std::optional<session::CompareReply> compared;
  double call_ms = 0;
};

// The live parts of a warm correctness check.
class WarmSession {
 public:
  WarmSession(VerdictRun& run, WarmJudge& judge)
      : run_(run), judge_(judge), id_(next_session_id()) {}
  ~WarmSession() { close(); }

  // The verdict's stage record is filled; false when the chain stops here. When the judge
  // itself failed, nothing is recorded but its cost, and judge_trouble() says why.
  bool check();
  const std::optional<std::string>& judge_trouble() const { return judge_trouble_; }

 private:
  struct Failure {
    Verdict verdict;
    std::string message;
    bool judge = false;  // the judge's own failure (it runs no candidate code)
  };
  static Failure judge_failure(const std::string& why) {
    return Failure{Verdict::kInternalError, "judge: " + why, true};
  }
  std::optional<Failure> open();
  std::optional<Failure> open_session(bool device);
  std::optional<Failure> start_candidate(std::vector<worker::ReceivedFd> fds);
  // The candidate process failed, ended or hung after `line` (if any): judged as a finished
  // worker process is.
  Failure await_end(const std::optional<std::string>& line, const TrialSlot& slot);
  std::optional<Failure> prepare(const TrialSlot& slot);
  // Hands the trial to the candidate, then waits for its answer: nullopt when it ran (its
  // outputs are the judge's to see). The judge prepares the next trial in between.
  std::optional<Failure> send_trial(const TrialSlot& slot);
  std::optional<Failure> await_trial(const TrialSlot& slot);
  std::optional<Failure> compare(const TrialSlot& slot);
  // Runs [first, last) of `trials_` (prepare ahead, run, compare); the failure, if any, with
  // the job it happened in (failed_job_).
  std::optional<Failure> run_range(std::size_t first, std::size_t last);
  bool judge_jobs(std::size_t first_job, std::size_t last_job, bool unseen);
  bool fail(const Failure& failure);
  void close();
  void close_session();  // the judge frees the session's memory
  void count_costs();

  VerdictRun& run_;
  WarmJudge& judge_;
  std::string id_;
  bool opened_ = false;
  session::OpenReply exchange_;
  std::unique_ptr<util::LiveProcess> candidate_;
  std::vector<TrialSlot> trials_;
  std::map<std::pair<std::size_t, int>, TrialResult> results_;
  std::size_t failed_job_ = 0;
  StageParts judge_parts_;
  std::optional<json> last_reply_;  // the candidate's last reply (its parts and wall time)
  Clock::time_point start_ = Clock::now();
  double candidate_wait_s_ = 0;  // time spent waiting for the candidate's replies
  int judge_starts_before_ = 0;
  bool costs_counted_ = false;
  bool candidate_ready_ = false;
  std::string device_refusal_;  // why the candidate could not map device memory
  std::optional<std::string> judge_trouble_;
};

// How the candidate process says it could not map the judge's device memory.
constexpr std::string_view kExchangeRefused = "exchange memory: ";

constexpr std::chrono::seconds kJudgeTimeout{300};

std::optional<WarmSession::Failure> WarmSession::open() {
  judge_starts_before_ = judge_.starts();
  const bool refused = judge_.device_exchange_refused();
  auto failed = open_session(run_.options().device_exchange && !refused);
  if (refused && !failed)
    run_.e.judge = fmt::format("warm (host exchange: {})", judge_.device_refusal());
  if (failed || candidate_ready_) return failed;
  // The candidate could not map the judge's device memory: the session goes to shared host
  // memory, and so do this judge's later ones (the record says why).
  const std::string why = device_refusal_;
  judge_.refuse_device_exchange(why);
  close_session();
  id_ = next_session_id();
  failed = open_session(false);
  if (!failed) exchange_.note = why;
  run_.e.judge = fmt::format("warm (host exchange: {})", why);
  return failed;
}

std::optional<WarmSession::Failure> WarmSession::open_session(bool device) {
  std::vector<worker::WorkerJob> jobs = run_.jobs;
  for (auto& job : jobs) job.request = session::JudgeRequest{};
  const session::OpenRequest request{.session = id_,
                                     .jobs = std::move(jobs),
                                     .reference_cache = run_.options().settings.reference_cache,
                                     .device_exchange = device};
  auto reply = judge_.request(session::to_json(request), kJudgeTimeout);
  if (!reply) return judge_failure(reply.error().message);
  auto parsed = session::open_reply_from_json(reply->body);
  if (!parsed) return judge_failure(parsed.error().message);
  if (reply->fds.size() != static_cast<std::size_t>(session::kExchangeSets) ||
      parsed->baselines.size() != run_.jobs.size())
    return judge_failure("the open reply lacks its exchange sets");
  opened_ = true;
  exchange_ = std::move(*parsed);
  run_.e.judge = exchange_.note.empty()
                     ? fmt::format("warm ({} exchange)", session::to_string(exchange_.kind))
                     : fmt::format("warm ({} exchange: {})", session::to_string(exchange_.kind),
                                   exchange_.note);
  return start_candidate(std::move(reply->fds));
}

std::optional<WarmSession::Failure> WarmSession::start_candidate(
    std::vector<worker::ReceivedFd> fds) {
  const auto& options = run_.options();
  session::CandidateSession first{
      .jobs = run_.jobs, .kind = exchange_.kind, .set_bytes = exchange_.set_bytes};
  util::ProcessSpec spec{.argv = {options.worker.string(), "trials"},
                         .output_cap_bytes = 4u << 20,
                         .env = options.worker_env};
  for (const auto& fd : fds) {
    first.set_fds.push_back(fd.get());
    spec.inherited_fds.push_back(fd.get());
  }
  if (run_.context.cache_ready) spec.read_paths.push_back(options.cache_dir);
  auto started = run_.context.runner.start(spec);
  // The candidate has its own copies now; ours close with `fds`.
  if (!started)
    return Failure{Verdict::kInternalError,
                   "the candidate process could not start: " + started.error().message};
  candidate_ = std::move(*started);
  if (!candidate_->write_line(session::to_json(first).dump()))
    return Failure{Verdict::kRuntimeError, "the candidate process ended before its first trial"};
  // Its first answer: ready (the sets mapped, the candidate loaded), or why not.
  auto line = candidate_->read_line(options.candidate_timeout);
  std::optional<worker::WorkerReply> reply;
  if (line) {
    if (auto parsed = worker::parse_reply(*line)) reply = std::move(*parsed);
  }
  if (reply && reply->status == worker::ReplyStatus::kOk && reply->message == "ready") {
    candidate_ready_ = true;
    return std::nullopt;
  }
  if (reply && reply->status == worker::ReplyStatus::kInternalError &&
      reply->message.starts_with(kExchangeRefused) &&
      exchange_.kind == session::ExchangeKind::kDevice) {
    device_refusal_ = reply->message.substr(kExchangeRefused.size());
    const auto ended = candidate_->finish(std::chrono::seconds(5));
    worker::count_process(run_.e.stage(Stage::kCorrectness), worker::process_cost(ended));
    candidate_.reset();
    return std::nullopt;  // open() falls back to the host
  }
  return await_end(line, TrialSlot{});
}

std::optional<WarmSession::Failure> WarmSession::prepare(const TrialSlot& slot) {
  const session::TrialRequest request{
      .session = id_, .job = slot.job, .trial = slot.trial, .set = slot.set};
  auto reply = judge_.request(session::to_json(request, "prepare"), kJudgeTimeout);
  if (!reply) return judge_failure(reply.error().message);
  auto parsed = session::prepare_reply_from_json(reply->body);
  if (!parsed) return judge_failure(parsed.error().message);
  add_parts(judge_parts_, parsed->parts);
  if (parsed->reference_cached)
    ++run_.reference_counts.hits;
  else
    ++run_.reference_counts.misses;
  results_[{slot.job, slot.trial}].prepared = std::move(*parsed);
  return std::nullopt;
}

std::optional<WarmSession::Failure> WarmSession::send_trial(const TrialSlot& slot) {
  const TrialResult& result = results_.at({slot.job, slot.trial});
  const session::CandidateTrialRequest line{.job = slot.job,
                                            .trial = slot.trial,
                                            .set = slot.set,
                                            .placement = result.prepared.placement};
  if (!candidate_->write_line(session::to_json(line).dump()))
    return await_trial(slot);  // it ended: its end says why
  return std::nullopt;
}

std::optional<WarmSession::Failure> WarmSession::await_trial(const TrialSlot& slot) {
  const auto& options = run_.options();
  const auto budget = std::chrono::duration_cast<std::chrono::milliseconds>(
      options.candidate_timeout - std::chrono::duration<double>(candidate_wait_s_));
  const auto asked = Clock::now();
  auto line = candidate_->read_line(std::max(budget, std::chrono::milliseconds(1)));
  candidate_wait_s_ += util::seconds_since(asked);
  std::optional<worker::WorkerReply> reply;
  if (line) {
    if (auto parsed = worker::parse_reply(*line)) reply = std::move(*parsed);
  }
  if (reply && reply->status == worker::ReplyStatus::kOk) {
    last_reply_ = reply->body;
    results_[{slot.job, slot.trial}].call_ms = reply->body.value("call_ms", 0.0);
    return std::nullopt;
  }
  return await_end(line, slot);
}

WarmSession::Failure WarmSession::await_end(const std::optional<std::string>& line,
                                            const TrialSlot& slot) {
  const auto& options = run_.options();
  // The trial failed, or the process ended or hung: judged as a finished worker process is, so
  // every ending reads as it does with fresh judges.
  const bool hung = !line && candidate_->timed_out();
  if (hung) candidate_->kill();
  util::ProcessResult ended = candidate_->finish(std::chrono::seconds(5));
  ended.timed_out = ended.timed_out || hung;
  if (line) ended.stdout_text = *line + "\n" + ended.stdout_text;
  const worker::WorkerCall call{
      .mode = "trials", .timeout = options.candidate_timeout, .trust = worker::Trust::kUntrusted};
  const worker::WorkerOutcome outcome = worker::judge_worker_process(ended, call);
  last_reply_.reset();
  worker::count_process(run_.e.stage(Stage::kCorrectness), outcome.cost);
  candidate_.reset();
  if (outcome.ok())  // a reply that said ok after all, yet not for this trial
    return Failure{Verdict::kRuntimeError,
                   fmt::format("the candidate process did not answer trial {} of {}",
                               slot.trial + 1, run_.jobs[slot.job].workload)};
  return Failure{outcome.verdict, outcome.message};
}

std::optional<WarmSession::Failure> WarmSession::compare(const TrialSlot& slot) {
  const session::TrialRequest request{
      .session = id_, .job = slot.job, .trial = slot.trial, .set = slot.set};
  auto reply = judge_.request(session::to_json(request, "compare"), kJudgeTimeout);
  if (!reply) return judge_failure(reply.error().message);
  auto parsed = session::compare_reply_from_json(reply->body);
  if (!parsed) return judge_failure(parsed.error().message);
  add_parts(judge_parts_, parsed->parts);
  results_[{slot.job, slot.trial}].compared = std::move(*parsed);
  return std::nullopt;
}

std::optional<WarmSession::Failure> WarmSession::run_range(std::size_t first, std::size_t last) {
  if (first >= last) return std::nullopt;
  if (auto failed = prepare(trials_[first])) return failed;
  for (std::size_t i = first; i < last; ++i) {
    const TrialSlot& slot = trials_[i];
    failed_job_ = slot.job;
    if (auto failed = send_trial(slot)) return failed;
    // The judge prepares the next trial in the other set while the candidate runs this one.
    if (i + 1 < last) {
      if (auto failed = prepare(trials_[i + 1])) return failed;
    }
    if (auto failed = await_trial(slot)) return failed;
    if (auto failed = compare(slot)) return failed;
  }
  return std::nullopt;
}

bool WarmSession::fail(const Failure& failure) {
  if (candidate_) candidate_->kill();  // it may still be running a trial
  count_costs();
  if (failure.judge) {
    judge_trouble_ = failure.message;
    return false;
  }
  return correctness_failed(run_, start_, failure.verdict, failure.message);
}

// The replies of jobs [first_job, last_job) as the fresh path's two workers give them, judged
// by the same rule (correctness_judgement.hpp).
bool WarmSession::judge_jobs(std::size_t first_job, std::size_t last_job, bool unseen) {
  std::vector<worker::WorkerJob> jobs;
  std::vector<bool> headline;
  correctness::CandidateReply ran;
  correctness::JudgeReply judged;
  for (std::size_t j = first_job; j < last_job; ++j) {
    const worker::WorkerJob& job = run_.jobs[j];
    jobs.push_back(job);
    headline.push_back(j < run_.task.workloads.size() && run_.task.workloads[j].headline);
    correctness::CandidateJob candidate_job{.workload = job.workload};
    correctness::JudgeJob judge_job{.workload = job.workload, .baseline = exchange_.baselines[j]};
    for (int t = 0; t < job.trials; ++t) {
      const TrialResult& result = results_.at({j, t});
      const correctness::JudgeTrial& trial = result.compared->trial;
      candidate_job.trials.push_back({.trial = t,
                                      .seed = trial.seed,
                                      .input_hashes_before = result.prepared.input_hashes,
                                      .input_hashes_after = result.compared->input_hashes_after,
                                      .call_ms = result.call_ms});
      judge_job.trials.push_back(trial);
    }
    ran.jobs.push_back(std::move(candidate_job));
    judged.jobs.push_back(std::move(judge_job));
  }
  auto judgement = worker::judge_correctness(jobs, headline, ran, judged);
  for (auto& w : judgement.workloads) {
    w.unseen = unseen;
    run_.e.workloads.push_back(std::move(w));
  }
  if (judgement.verdict != Verdict::kPassed && !unseen)
    return fail(Failure{judgement.verdict, judgement.message});
  return true;
}

bool WarmSession::check() {
  if (auto failed = open()) return fail(*failed);
  int k = 0;
  std::size_t shown_trials = 0;
  for (std::size_t j = 0; j < run_.jobs.size(); ++j) {
    for (int t = 0; t < run_.jobs[j].trials; ++t)
      trials_.push_back({.job = j, .trial = t, .set = k++ % session::kExchangeSets});
    if (j + 1 == run_.shown) shown_trials = trials_.size();
  }
  if (auto failed = run_range(0, shown_trials)) return fail(*failed);
  if (!judge_jobs(0, run_.shown, false)) return false;
  if (run_.shown < run_.jobs.size()) {
    auto failed = run_range(shown_trials, trials_.size());
    if (failed && failed->verdict == Verdict::kInternalError) return fail(*failed);
    // A run that failed on an unseen workload fails it and the unseen ones after it (the
    // process is gone); those before it are judged.
    const std::size_t judged_end = failed ? failed_job_ : run_.jobs.size();
    if (!judge_jobs(run_.shown, judged_end, true)) return false;
    for (std::size_t j = judged_end; j < run_.jobs.size(); ++j) {
      run_.e.workloads.push_back(WorkloadResult{.workload = run_.jobs[j].workload,
                                                .unseen = true,
                                                .status = failed->verdict,
                                                .message = "hidden workload"});
    }
  }
  count_costs();
  return correctness_passed(run_, start_);
}

void WarmSession::count_costs() {
  if (costs_counted_) return;
  costs_counted_ = true;
  auto& record = run_.e.stage(Stage::kCorrectness);
  if (run_.options().settings.reference_cache)
    record.reference_cache =
        CacheCounts{.hits = run_.reference_counts.hits, .misses = run_.reference_counts.misses};
  add_parts(record.parts, judge_parts_);
  record.processes += judge_.starts() - judge_starts_before_;
  if (!candidate_) return;
  const auto ended = candidate_->finish(std::chrono::seconds(10));
  candidate_.reset();
  worker::ProcessCost cost{.seconds = std::chrono::duration<double>(ended.wall).count()};
  if (last_reply_) {
    if (auto parts = last_reply_->find("parts"); parts != last_reply_->end())
      cost.parts = parts_from_json(*parts);
    if (auto wall = last_reply_->find("wall_s"); wall != last_reply_->end() && wall->is_number())
      cost.worker_seconds = std::clamp(wall->get<double>(), 0.0, cost.seconds);
  }
  worker::count_process(record, cost);
}

void WarmSession::close() {
  count_costs();
  close_session();
}

void WarmSession::close_session() {
  if (!opened_) return;
  opened_ = false;
  (void)judge_.request(json{{"op", "close"}, {"session", id_}}, kJudgeTimeout, false);
}

}  // namespace

bool check_correctness_warm(VerdictRun& run, WarmJudge& judge, std::string& judge_trouble) {
  WarmSession session(run, judge);
  const bool passed = session.check();
  if (session.judge_trouble()) judge_trouble = *session.judge_trouble();
  return passed;
}

}  // namespace ptxbench::eval::gpu_pipeline
