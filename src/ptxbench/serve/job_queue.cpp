#include "ptxbench/serve/job_queue.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/check.hpp"
#include "ptxbench/util/child_processes.hpp"

namespace ptxbench::serve {

JobQueue::JobQueue(JobJournal& journal, const std::vector<task::Task>& suite,
                   agent::EvaluateFn evaluate, QueueLimits limits)
    : JobQueue(journal, suite, evaluate_each(std::move(evaluate), std::max(1, limits.workers)),
               limits) {}

JobQueue::JobQueue(JobJournal& journal, const std::vector<task::Task>& suite,
                   StreamEvaluateFn evaluate, QueueLimits limits)
    : journal_(journal), suite_(suite), evaluate_(std::move(evaluate)), limits_(limits) {
  auto recovered = journal_.recover();
  next_sequence_ = recovered.next_sequence;
  recovery_problems_ = std::move(recovered.problems);
  for (auto& done : recovered.done) finished_.push_back({.id = done.id, .at = done.finished});
  for (auto& job : recovered.queued) {
    known_[job.id] = {.state = JobState::kQueued, .client = job.client};
    ++in_flight_[job.client];
    queued_.push_back(std::move(job));
  }
  limits_.workers = std::max(1, limits_.workers);
  {
    std::lock_guard lock(mutex_);
    prune_done();
  }
  stream_ = std::thread([this] { evaluate_until_drained(); });
}

JobQueue::~JobQueue() {
  drain();
}

SubmitResult JobQueue::submit(Job job, const Client& client) {
  if (!task::find_task(suite_, job.task))
    return {.status = SubmitStatus::kUnknownTask,
            .message = fmt::format("task: no task named {}", job.task)};
  std::lock_guard lock(mutex_);
  if (draining_)
    return {.status = SubmitStatus::kDraining, .message = "the service is shutting down"};
  prune_done();
  if (queued_.size() >= limits_.capacity)
    return {.status = SubmitStatus::kQueueFull,
            .message = fmt::format("the queue is full ({} waiting)", queued_.size())};
  if (in_flight_[client.name] >= client.max_in_flight)
    return {.status = SubmitStatus::kClientLimit,
            .message = fmt::format("client {} already has {} evaluations queued or running",
                                   client.name, client.max_in_flight)};
  job.sequence = next_sequence_++;
  job.id = make_job_id(job.sequence);
  job.client = client.name;
  job.submitted_at = agent::utc_timestamp();
  journal_.accept(job);  // on disk before anyone hears the id
  known_[job.id] = {.state = JobState::kQueued, .client = job.client};
  ++in_flight_[job.client];
  const auto id = job.id;
  queued_.push_back(std::move(job));
  changed_.notify_all();
  return {.status = SubmitStatus::kAccepted, .id = id};
}

std::optional<JobSnapshot> JobQueue::find_locked(const std::string& id) const {
  if (auto it = known_.find(id); it != known_.end()) return it->second;
  return std::nullopt;
}

std::optional<JobSnapshot> JobQueue::find(const std::string& id) const {
  {
    std::lock_guard lock(mutex_);
    if (auto snapshot = find_locked(id)) return snapshot;
  }
  // Finished before this process started.
  auto entry = journal_.done_entry(id);
  if (!entry) return std::nullopt;
  return JobSnapshot{.state = JobState::kDone,
                     .client = entry->at("job").value("client", ""),
                     .record = entry->at("record")};
}

std::optional<JobSnapshot> JobQueue::wait_for_change(const std::string& id, JobState seen,
                                                     std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [&] {
    auto snapshot = find_locked(id);
    return !snapshot || snapshot->state != seen ||
           (draining_ && snapshot->state == JobState::kQueued);
  });
  if (auto snapshot = find_locked(id)) return snapshot;
  lock.unlock();
  return find(id);
}

std::optional<nlohmann::json> JobQueue::wait_done(const std::string& id) const {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] {
    auto snapshot = find_locked(id);
    return !snapshot || snapshot->state == JobState::kDone ||
           (draining_ && snapshot->state == JobState::kQueued);
  });
  auto snapshot = find_locked(id);
  lock.unlock();
  if (!snapshot) snapshot = find(id);  // finished before this process started
  if (!snapshot || snapshot->state != JobState::kDone) return std::nullopt;
  return snapshot->record;
}

bool JobQueue::drain_for(std::chrono::milliseconds bound) {
  std::unique_lock lock(mutex_);
  draining_ = true;
  changed_.notify_all();
  return changed_.wait_for(lock, bound, [&] { return running_ == 0; });
}

void JobQueue::drain() {
  {
    std::lock_guard lock(mutex_);
    draining_ = true;
  }
  changed_.notify_all();
  if (stream_.joinable()) stream_.join();
}

bool JobQueue::draining() const {
  std::lock_guard lock(mutex_);
  return draining_;
}

JobQueue::Counts JobQueue::counts() const {
  std::lock_guard lock(mutex_);
  return {.queued = queued_.size(), .running = running_, .done = done_};
}

void JobQueue::evaluate_until_drained() {
  for (;;) {
    try {
      evaluate_([this] { return next_job(); },
                [this](std::size_t sequence, const eval::Evaluation& evaluation) {
                  record(sequence, evaluation);
                });
    } catch (const util::Stopped&) {
      break;  // what it had not judged goes back to the journal's queue below
    } catch (const std::exception& error) {
      // A failure of the judge, not of a candidate: the jobs under way are recorded as such so
      // that no client is left waiting, and the stream starts again.
      std::fprintf(stderr, "ptxbench serve: the evaluation stream failed: %s\n", error.what());
      std::map<std::uint64_t, Job> failed;
      {
        std::lock_guard lock(mutex_);
        failed = running_jobs_;
      }
      for (const auto& [sequence, job] : failed) {
        try {
          record_failure(job, error.what());
        } catch (const std::exception& also) {
          std::fprintf(stderr, "ptxbench serve: %s: %s\n", job.id.c_str(), also.what());
        }
      }
    }
    std::lock_guard lock(mutex_);
    if (draining_ || util::children_stopped()) break;
  }
  requeue_running();
}

std::optional<eval::StreamCandidate> JobQueue::next_job() {
  for (;;) {
    Job job;
    const task::Task* task = nullptr;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] {
        return draining_ ||
               (!queued_.empty() && running_ < static_cast<std::size_t>(limits_.workers));
      });
      if (draining_) return std::nullopt;  // queued jobs stay accepted in the journal
      job = std::move(queued_.front());
      queued_.pop_front();
      journal_.start(job.id);
      known_[job.id].state = JobState::kRunning;
      ++running_;
      task = task::find_task(suite_, job.task);
      if (task) running_jobs_[job.sequence] = job;
    }
    changed_.notify_all();
    if (!task) {
      // Accepted by a service whose suite had this task; this one has not.
      record_failure(job, "task " + job.task + " is not in this service's suite");
      continue;
    }
    return eval::StreamCandidate{
        .id = job.sequence,
        .task = task,
        .arch = job.arch,
        .input = {
            .text = job.text, .is_markdown = job.is_markdown, .source_name = job.source_name}};
  }
}

void JobQueue::record(std::uint64_t sequence, const eval::Evaluation& evaluation) {
  Job job;
  {
    std::lock_guard lock(mutex_);
    auto it = running_jobs_.find(sequence);
    PTXBENCH_CHECK(it != running_jobs_.end(), "a verdict for a job that is not running");
    job = it->second;
  }
  auto record = eval::to_json(evaluation);
  journal_.finish(job, record);
  {
    std::lock_guard lock(mutex_);
    running_jobs_.erase(sequence);
    auto& snapshot = known_[job.id];
    snapshot.state = JobState::kDone;
    snapshot.record = std::move(record);
    --running_;
    ++done_;
    --in_flight_[job.client];
    finished_.push_back({.id = job.id, .at = std::filesystem::file_time_type::clock::now()});
    prune_done();
  }
  changed_.notify_all();
}

void JobQueue::prune_done() {
  const auto oldest = std::filesystem::file_time_type::clock::now() - limits_.keep_done_for;
  while (!finished_.empty() &&
         (finished_.size() > limits_.keep_done_count || finished_.front().at < oldest)) {
    journal_.forget_done(finished_.front().id);
    known_.erase(finished_.front().id);
    finished_.pop_front();
  }
}

void JobQueue::record_failure(const Job& job, const std::string& why) {
  eval::Evaluation evaluation;
  evaluation.task = job.task;
  evaluation.arch = job.arch;
  evaluation.source_name = job.source_name;
  evaluation.verdict = eval::Verdict::kInternalError;
  evaluation.message = "ptxbench failed, not the candidate: " + why;
  {
    std::lock_guard lock(mutex_);
    running_jobs_.try_emplace(job.sequence, job);
  }
  record(job.sequence, evaluation);
}

void JobQueue::requeue_running() {
  std::map<std::uint64_t, Job> cut_short;
  {
    std::lock_guard lock(mutex_);
    cut_short.swap(running_jobs_);
  }
  // Back to the front of the queue in their order, for the next start (or a later stream).
  for (auto it = cut_short.rbegin(); it != cut_short.rend(); ++it) {
    journal_.requeue(it->second.id);
    std::lock_guard lock(mutex_);
    known_[it->second.id].state = JobState::kQueued;
    --running_;
    queued_.push_front(std::move(it->second));
  }
  changed_.notify_all();
}

}  // namespace ptxbench::serve
