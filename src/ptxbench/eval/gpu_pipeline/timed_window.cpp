#include "ptxbench/eval/gpu_pipeline/timed_window.hpp"

#include <fmt/format.h>

#include "ptxbench/eval/timing/gpu_neighbours.hpp"
#include "ptxbench/eval/timing/timing_protocol.hpp"
#include "ptxbench/util/live_process.hpp"

namespace ptxbench::eval::gpu_pipeline {
namespace {

worker::WorkerCall timing_call(const VerdictRun& run, std::size_t job) {
  worker::WorkerJob timed = run.jobs[job];
  timed.request = timing::TimingRequest{.options = run.options().timing};
  return run.call("time", worker::format_jobs({timed}), run.options().timing_timeout,
                  worker::Trust::kUntrusted);
}

// One window with a started process: "go", then its reply; as a finished process's outcome.
worker::WorkerOutcome run_window(const VerdictRun& run, std::size_t job,
                                 util::LiveProcess& process) {
  const auto call = timing_call(run, job);
  process.write_line("go");
  // Its "ready" line (if not read yet), then the timing reply; only what follows "ready" is
  // the process's answer.
  std::string answer;
  for (int lines = 0; lines < 2; ++lines) {
    auto line = process.read_line(run.options().timing_timeout);
    if (!line) break;
    auto reply = worker::parse_reply(*line);
    if (reply && reply->status == worker::ReplyStatus::kOk && reply->message == "ready") continue;
    answer = *line + "\n";
    break;
  }
  const bool hung = process.timed_out();
  if (hung) process.kill();
  util::ProcessResult result = process.finish(std::chrono::seconds(10));
  result.timed_out = result.timed_out || hung;
  result.stdout_text = answer + result.stdout_text;
  return worker::judge_worker_process(result, call);
}

}  // namespace

TimingStarts::TimingStarts() = default;
TimingStarts::~TimingStarts() = default;

void TimingStarts::put(const Evaluation* candidate, std::size_t job,
                       std::unique_ptr<util::LiveProcess> p) {
  std::lock_guard lock(mutex_);
  started_[{candidate, job}] = std::move(p);
}

std::unique_ptr<util::LiveProcess> TimingStarts::take(const Evaluation* candidate,
                                                      std::size_t job) {
  std::lock_guard lock(mutex_);
  auto it = started_.find({candidate, job});
  if (it == started_.end()) return nullptr;
  auto p = std::move(it->second);
  started_.erase(it);
  return p;
}

void TimingStarts::drop(const Evaluation* candidate) {
  std::lock_guard lock(mutex_);
  std::erase_if(started_,
                [candidate](const auto& entry) { return entry.first.first == candidate; });
}

std::unique_ptr<util::LiveProcess> start_timing_process(const VerdictRun& run, std::size_t job) {
  const auto call = timing_call(run, job);
  util::ProcessSpec spec{.argv = {run.options().worker.string(), "time", "--serve"},
                         .output_cap_bytes = 4u << 20,
                         .env = call.env,
                         .read_paths = call.read_paths,
                         .write_paths = call.write_paths};
  auto started = run.context.runner.start(spec);
  if (!started) return nullptr;
  std::string job_line = *call.jobs_text;
  while (!job_line.empty() && job_line.back() == '\n') job_line.pop_back();  // one line
  if (!(*started)->write_line(job_line)) return nullptr;
  return std::move(*started);
}

TimedWindow time_alone(const VerdictRun& run, std::size_t job,
                       std::unique_ptr<util::LiveProcess> started) {
  TimedWindow timed;
  const GpuNeighbours* neighbours = run.context.neighbours;
  if (neighbours == nullptr) timed.window.note = run.context.neighbours_note;
  for (int attempt = 1;; ++attempt) {
    timed.window.attempts = attempt;
    if (!started) started = start_timing_process(run, job);
    if (!started) {
      // No live process here (a test's runner): the window runs the plain way, unwatched.
      timed.outcome = run.call_worker(timing_call(run, job));
      timed.window.note = "the timing process could not be watched (started the plain way)";
      return timed;
    }
    const std::uint64_t since = neighbours != nullptr ? neighbours->now() : 0;
    const pid_t pid = started->pid();
    timed.outcome = run_window(run, job, *started);
    started.reset();
    if (neighbours == nullptr || !timed.outcome.ok()) return timed;
    auto others = neighbours->others_since(since, pid);
    if (!others) {
      timed.window.alone.reset();
      timed.window.note = others.error().message;
      return timed;
    }
    timed.window.others = *others;
    timed.window.alone = others->empty();
    if (*timed.window.alone || attempt >= kTimingAttempts) return timed;
  }
}

}  // namespace ptxbench::eval::gpu_pipeline
