// The bounded, persistent queue of evaluations and the threads that run them. A submission is
// refused (never silently dropped) when the queue is full, when the client already has its
// limit of evaluations queued or running, or while the service drains. Drain stops accepting,
// lets running evaluations finish and leaves queued ones in the journal for the next start. An
// evaluation cut short because ptxbench is stopping (SIGTERM ends every child process,
// util/termination.hpp) is not a verdict: it goes back to the journal's queue, unrecorded.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/serve/client_tokens.hpp"
#include "ptxbench/serve/job_journal.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::serve {

struct QueueLimits {
  std::size_t capacity = 256;  // jobs waiting (not yet running), all clients together
  int workers = 1;             // evaluations run at once (compiles in parallel, GPU stages queue)
};

enum class SubmitStatus { kAccepted, kUnknownTask, kQueueFull, kClientLimit, kDraining };

struct SubmitResult {
  SubmitStatus status = SubmitStatus::kAccepted;
  std::string id;       // when accepted
  std::string message;  // when not
};

struct JobSnapshot {
  JobState state = JobState::kQueued;
  std::string client;
  std::optional<nlohmann::json> record;  // the evaluation record once done
};

class JobQueue {
 public:
  // `suite` and `evaluate` outlive the queue. Recovers the journal and starts the workers.
  JobQueue(JobJournal& journal, const std::vector<task::Task>& suite, agent::EvaluateFn evaluate,
           QueueLimits limits);
  ~JobQueue();  // drains
  JobQueue(const JobQueue&) = delete;
  JobQueue& operator=(const JobQueue&) = delete;

  // `job.id`, `sequence` and `submitted_at` are filled in here.
  SubmitResult submit(Job job, const Client& client);
  // nullopt: no such job (or one of another client when `client` is given).
  std::optional<JobSnapshot> find(const std::string& id) const;
  // Returns as soon as the job's state differs from `seen`, or after `timeout`.
  std::optional<JobSnapshot> wait_for_change(const std::string& id, JobState seen,
                                             std::chrono::milliseconds timeout) const;
  // Blocks until the job is done (or the queue drains: then nullopt).
  std::optional<nlohmann::json> wait_done(const std::string& id) const;

  void drain();
  bool draining() const;
  struct Counts {
    std::size_t queued = 0, running = 0, done = 0;
  };
  Counts counts() const;
  const std::vector<std::string>& recovery_problems() const { return recovery_problems_; }

 private:
  void work();
  void run_one(const Job& job);
  std::optional<JobSnapshot> find_locked(const std::string& id) const;

  JobJournal& journal_;
  const std::vector<task::Task>& suite_;
  agent::EvaluateFn evaluate_;
  QueueLimits limits_;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::deque<Job> queued_;
  std::map<std::string, JobSnapshot> known_;  // every job of this process's lifetime
  std::map<std::string, int> in_flight_;      // client -> queued + running
  std::uint64_t next_sequence_ = 1;
  std::size_t running_ = 0, done_ = 0;
  bool draining_ = false;
  std::vector<std::string> recovery_problems_;
  std::vector<std::thread> workers_;
};

}  // namespace ptxbench::serve
