#include "ptxbench/serve/job_queue.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/termination.hpp"

namespace ptxbench::serve {

JobQueue::JobQueue(JobJournal& journal, const std::vector<task::Task>& suite,
                   agent::EvaluateFn evaluate, QueueLimits limits)
    : journal_(journal), suite_(suite), evaluate_(std::move(evaluate)), limits_(limits) {
  auto recovered = journal_.recover();
  next_sequence_ = recovered.next_sequence;
  recovery_problems_ = std::move(recovered.problems);
  for (auto& job : recovered.queued) {
    known_[job.id] = {.state = JobState::kQueued, .client = job.client};
    ++in_flight_[job.client];
    queued_.push_back(std::move(job));
  }
  const int workers = std::max(1, limits_.workers);
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
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
    return !snapshot || snapshot->state != seen || draining_;
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

void JobQueue::drain() {
  {
    std::lock_guard lock(mutex_);
    draining_ = true;
  }
  changed_.notify_all();
  for (auto& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
}

bool JobQueue::draining() const {
  std::lock_guard lock(mutex_);
  return draining_;
}

JobQueue::Counts JobQueue::counts() const {
  std::lock_guard lock(mutex_);
  return {.queued = queued_.size(), .running = running_, .done = done_};
}

void JobQueue::work() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return draining_ || !queued_.empty(); });
      if (draining_) return;  // queued jobs stay accepted in the journal
      job = std::move(queued_.front());
      queued_.pop_front();
      journal_.start(job.id);
      known_[job.id].state = JobState::kRunning;
      ++running_;
    }
    changed_.notify_all();
    run_one(job);
  }
}

void JobQueue::run_one(const Job& job) {
  eval::Evaluation evaluation;
  try {
    const auto* task = task::find_task(suite_, job.task);
    if (!task) throw std::runtime_error("task " + job.task + " is not in this service's suite");
    evaluation = evaluate_(
        *task, job.arch,
        {.text = job.text, .is_markdown = job.is_markdown, .source_name = job.source_name});
  } catch (const std::exception& error) {
    // A failure of the judge, not of the candidate: recorded so the client is not left waiting.
    evaluation.task = job.task;
    evaluation.arch = job.arch;
    evaluation.verdict = eval::Verdict::kInternalError;
    evaluation.message = error.what();
  }
  if (util::stop_signal() != 0) {
    journal_.requeue(job.id);  // its tools were stopped under it: run it again next start
    {
      std::lock_guard lock(mutex_);
      known_[job.id].state = JobState::kQueued;
      --running_;
    }
    changed_.notify_all();
    return;
  }
  auto record = eval::to_json(evaluation);
  journal_.finish(job, record);
  {
    std::lock_guard lock(mutex_);
    auto& snapshot = known_[job.id];
    snapshot.state = JobState::kDone;
    snapshot.record = std::move(record);
    --running_;
    ++done_;
    --in_flight_[job.client];
  }
  changed_.notify_all();
}

}  // namespace ptxbench::serve
