// The modes of the ptxbench-worker executable (src/tools/worker_main.cpp). Each prints one
// reply line (worker/worker_reply.hpp) and returns the process exit status (0 whenever a reply
// was printed; the reply's status says what happened).
//   info       the GPU, driver and libraries (trusted; runs no candidate)
//   candidate  untrusted: runs the candidate on each job's trials, hands outputs over as files
//   judge      trusted: regenerates the same inputs, computes the reference, compares the files
//   time       untrusted: times candidate and baseline interleaved in this process
// The `probe` mode (executed-instruction proof) lives in probe_mode.hpp.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/eval/stage_parts.hpp"
#include "ptxbench/eval/worker/host_memory_guard.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/eval/worker/worker_reply.hpp"
#include "ptxbench/util/check.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::gpu {

int run_info_mode();
int run_candidate_mode(const std::vector<worker::WorkerJob>& jobs);
int run_judge_mode(const std::vector<worker::WorkerJob>& jobs);
// With `wait_for_go` (`time --serve`), it answers a "ready" reply once set up and times only
// after reading the line "go" (a timing process started ahead of its turn on the GPU).
int run_timing_mode(const worker::WorkerJob& job, bool wait_for_go = false);

// Keeps the reply channel for the worker: the original stdout is duplicated for the replies and
// file descriptor 1 is pointed at stderr, so whatever the candidate prints (printf, a flood of
// output) cannot bury or forge the reply line. Called once, first thing in main.
void reserve_reply_channel();

// Where this process's time goes (stage_parts.hpp): modes mark their parts on it, and every reply
// carries them with the time since main() began. One per process, like the reply channel.
PartClock& process_parts();

// Writes the reply line to the reply channel (stdout when none was reserved), with the process's
// parts and wall time.
void print_reply(worker::ReplyStatus status, std::string_view message,
                 nlohmann::json body = nlohmann::json::object());

// The value, or a PTXBENCH_CHECK failure with `what` and the error (for the worker's own steps).
template <class T>
T expect_value(util::Expected<T>&& expected, std::string_view what) {
  PTXBENCH_CHECK(expected.has_value(),
                 std::string(what) + ": " + (expected.has_value() ? "" : expected.error().message));
  return std::move(expected).value();
}

// Watches the process's resident host memory against the job's limits.host_memory_budget_bytes
// (none when it is 0); on a breach it prints a RUNTIME_ERROR reply and ends the process.
std::unique_ptr<worker::HostMemoryGuard> guard_host_memory(const worker::WorkerJob& job);

}  // namespace ptxbench::eval::gpu
