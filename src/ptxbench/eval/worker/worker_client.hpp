// Running one ptxbench-worker process and turning how it ended into a value: its reply, or the
// verdict and reason when it crashed, hung, was killed or printed no reply. Whether a failure
// is the candidate's depends on the mode: in an untrusted mode (candidate code loaded) a crash
// is RUNTIME_ERROR; in a trusted mode (judge, info) it is ptxbench's INTERNAL_ERROR.
#pragma once
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/stage_parts.hpp"
#include "ptxbench/eval/worker/worker_reply.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval::worker {

enum class Trust { kTrusted, kUntrusted };

struct WorkerCall {
  std::string mode;                      // "info", "candidate", "judge", "time", "probe"
  std::optional<std::string> jobs_text;  // stdin (format_jobs)
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  Trust trust = Trust::kUntrusted;
  std::vector<std::pair<std::string, std::string>> env;
  // Folders the worker writes besides its scratch (the exchange folder of a correctness chunk):
  // a sandboxing runner binds them in (util::ProcessSpec::write_paths).
  std::vector<std::filesystem::path> write_paths;
  // Folders it only reads (the baseline cache, for a worker that runs candidate code).
  std::vector<std::filesystem::path> read_paths;
};

// What one finished worker process cost: its wall time seen from here, and where it says its own
// time went (main() to its reply line; stage_parts.hpp): nullopt/empty when it never replied.
struct ProcessCost {
  double seconds = 0;
  std::optional<double> worker_seconds;
  StageParts parts;
};
ProcessCost process_cost(const util::ProcessResult& result);

// Adds one finished worker process to a stage's record: its parts, its cost outside main()
// (`process`: start, sandbox, exit; the whole wall when it never replied) and one process start.
void count_process(StageRecord& record, const ProcessCost& cost);

struct WorkerOutcome {
  std::optional<WorkerReply> reply;    // present whenever the worker replied
  Verdict verdict = Verdict::kPassed;  // kPassed when the reply's status is ok
  std::string message;                 // why, when not ok
  double seconds = 0;
  ProcessCost cost;
  util::ProcessResult process;

  bool ok() const { return verdict == Verdict::kPassed; }
};

// The verdict a reply status stands for (kPassed for ok).
Verdict verdict_of(ReplyStatus status);

// The last lines of a process's stderr, for messages (bounded).
std::string stderr_tail(const util::ProcessResult& result, std::size_t max_lines = 6);

WorkerOutcome call_worker(util::ProcessRunner& runner, const std::filesystem::path& worker,
                          const WorkerCall& call);

// The outcome of an already finished process (call_worker without the running).
WorkerOutcome judge_worker_process(const util::ProcessResult& result, const WorkerCall& call);

}  // namespace ptxbench::eval::worker
