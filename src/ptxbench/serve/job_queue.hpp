// The bounded, persistent queue of evaluations and the stream that evaluates them. A submission
// is refused (never silently dropped) when the queue is full, when the client already has its
// limit of evaluations queued or running, or while the service drains. The queue is the source
// of one evaluation stream (stream_evaluation.hpp: the engine's scheduler in `ptxbench serve`):
// a job runs from the moment the stream takes it until its verdict is recorded. Drain stops
// accepting and handing out jobs, lets the running ones finish and be recorded, and leaves the
// queued ones in the journal for the next start. An evaluation cut short because ptxbench is
// stopping its child processes (util/child_processes.hpp) is not a verdict: it goes back to the
// journal's queue, unrecorded.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <filesystem>
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
#include "ptxbench/serve/stream_evaluation.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::serve {

struct QueueLimits {
  std::size_t capacity = 256;  // jobs waiting (not yet running), all clients together
  // Evaluations under way at once (compiling, waiting for a GPU or on one): how far compiles
  // may run ahead of the GPUs, and how much a drain waits for.
  int workers = 1;
  // Finished evaluations kept (journal and memory) for polls and streams: at most this many, and
  // none older than keep_done_for; the oldest go first. Checked at each submission and verdict.
  std::size_t keep_done_count = 10'000;
  std::chrono::seconds keep_done_for = std::chrono::hours(24 * 7);
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
  // `suite` outlives the queue. Recovers the journal and starts the evaluation stream.
  JobQueue(JobJournal& journal, const std::vector<task::Task>& suite, StreamEvaluateFn evaluate,
           QueueLimits limits);
  // A function of one candidate on `limits.workers` threads (evaluate_each).
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

  // Stops accepting and handing out jobs, then waits up to `bound` for the running ones to be
  // recorded; true when none is left running. The caller may then stop them
  // (util::stop_all_children) before drain().
  bool drain_for(std::chrono::milliseconds bound);
  // Stops accepting, waits until the stream has ended (every running job recorded, or cut short
  // and back in the journal's queue).
  void drain();
  bool draining() const;
  struct Counts {
    std::size_t queued = 0, running = 0, done = 0;
  };
  Counts counts() const;
  const std::vector<std::string>& recovery_problems() const { return recovery_problems_; }

 private:
  void evaluate_until_drained();
  std::optional<eval::StreamCandidate> next_job();  // the stream's source; blocks
  void record(std::uint64_t sequence, const eval::Evaluation& evaluation);  // the stream's sink
  void record_failure(const Job& job, const std::string& why);
  void requeue_running();
  std::optional<JobSnapshot> find_locked(const std::string& id) const;
  void prune_done();  // mutex_ held

  JobJournal& journal_;
  const std::vector<task::Task>& suite_;
  StreamEvaluateFn evaluate_;
  QueueLimits limits_;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::deque<Job> queued_;
  std::map<std::string, JobSnapshot> known_;   // every job of this process's lifetime
  std::map<std::string, int> in_flight_;       // client -> queued + running
  std::map<std::uint64_t, Job> running_jobs_;  // taken by the stream, by sequence
  struct Finished {
    std::string id;
    std::filesystem::file_time_type at;
  };
  std::deque<Finished> finished_;  // every kept finished job, oldest first
  std::uint64_t next_sequence_ = 1;
  std::size_t running_ = 0, done_ = 0;
  bool draining_ = false;
  std::vector<std::string> recovery_problems_;
  std::thread stream_;
};

}  // namespace ptxbench::serve
