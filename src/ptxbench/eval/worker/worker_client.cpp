#include "ptxbench/eval/worker/worker_client.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ptxbench::eval::worker {

Verdict verdict_of(ReplyStatus status) {
  switch (status) {
    case ReplyStatus::kOk:
      return Verdict::kPassed;
    case ReplyStatus::kRuntimeError:
      return Verdict::kRuntimeError;
    case ReplyStatus::kTimeout:
      return Verdict::kTimeout;
    case ReplyStatus::kForbidden:
      return Verdict::kForbidden;
    case ReplyStatus::kUnsupported:
    case ReplyStatus::kInternalError:
      return Verdict::kInternalError;
  }
  return Verdict::kInternalError;
}

std::string stderr_tail(const util::ProcessResult& result, std::size_t max_lines) {
  constexpr std::size_t kMaxChars = 1500;
  std::string_view text = result.stderr_text;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::size_t begin = text.size();
  for (std::size_t lines = 0; begin > 0 && lines < max_lines;) {
    --begin;
    if (text[begin] == '\n' && ++lines == max_lines) {
      ++begin;
      break;
    }
  }
  text = text.substr(begin);
  if (text.size() > kMaxChars) text = text.substr(text.size() - kMaxChars);
  return std::string(text);
}

WorkerOutcome judge_worker_process(const util::ProcessResult& result, const WorkerCall& call) {
  WorkerOutcome outcome;
  outcome.process = result;
  outcome.seconds = static_cast<double>(result.wall.count()) / 1000.0;
  outcome.cost = process_cost(result);
  bool untrusted = call.trust == Trust::kUntrusted;
  std::string who = fmt::format("ptxbench-worker {}", call.mode);
  auto with_stderr = [&](std::string message) {
    std::string tail = stderr_tail(result);
    return tail.empty() ? message : message + "; stderr: " + tail;
  };
  if (!result.started) {
    outcome.verdict = Verdict::kInternalError;
    outcome.message = who + " could not start: " + result.spawn_error;
    return outcome;
  }
  if (result.timed_out) {
    // A hang in trusted code is still ours; in untrusted code it is the candidate's.
    outcome.verdict = untrusted ? Verdict::kTimeout : Verdict::kInternalError;
    outcome.message = fmt::format("{} was killed after {:.0f} s without finishing", who,
                                  std::chrono::duration<double>(call.timeout).count());
    return outcome;
  }
  auto reply = parse_reply(result.stdout_text);
  if (reply) {
    outcome.reply = reply.value();
    outcome.verdict = verdict_of(reply->status);
    if (!untrusted && outcome.verdict != Verdict::kPassed)
      outcome.verdict = Verdict::kInternalError;
    if (!outcome.ok()) {
      outcome.message =
          reply->message.empty() ? std::string(to_string(reply->status)) : reply->message;
      if (reply->status == ReplyStatus::kInternalError)
        outcome.message = with_stderr(outcome.message);
    }
    return outcome;
  }
  // No reply: the process died or exited on its own before answering.
  outcome.verdict = untrusted ? Verdict::kRuntimeError : Verdict::kInternalError;
  std::string how = result.term_signal != 0
                        ? result.describe_end()
                        : fmt::format("exited ({}) without a reply", result.describe_end());
  outcome.message = with_stderr(
      fmt::format("{} {}{}", who, how, untrusted ? " while running the candidate" : ""));
  return outcome;
}

WorkerOutcome call_worker(util::ProcessRunner& runner, const std::filesystem::path& worker,
                          const WorkerCall& call) {
  util::ProcessSpec spec{.argv = {worker.string(), call.mode},
                         .stdin_text = call.jobs_text,
                         .timeout = call.timeout,
                         .output_cap_bytes = 1u << 20,
                         .env = call.env,
                         .read_paths = call.read_paths,
                         .write_paths = call.write_paths};
  return judge_worker_process(runner.run(spec), call);
}

ProcessCost process_cost(const util::ProcessResult& result) {
  ProcessCost cost{.seconds = static_cast<double>(result.wall.count()) / 1000.0};
  auto reply = parse_reply(result.stdout_text);
  if (!reply) return cost;
  if (auto parts = reply->body.find("parts"); parts != reply->body.end())
    cost.parts = parts_from_json(*parts);
  if (auto wall = reply->body.find("wall_s");
      wall != reply->body.end() && wall->is_number() && std::isfinite(wall->get<double>()))
    cost.worker_seconds = std::clamp(wall->get<double>(), 0.0, cost.seconds);
  return cost;
}

void count_process(StageRecord& record, const ProcessCost& cost) {
  ++record.processes;
  add_parts(record.parts, cost.parts);
  add_part(record.parts, part::kProcess, cost.seconds - cost.worker_seconds.value_or(0.0));
}

}  // namespace ptxbench::eval::worker
