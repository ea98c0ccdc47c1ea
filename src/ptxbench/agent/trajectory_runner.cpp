#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/util/timestamps.hpp"

#include <fmt/format.h>

#include <chrono>

#include "ptxbench/agent/feedback.hpp"
#include "ptxbench/config.hpp"
#include "ptxbench/util/check.hpp"

namespace ptxbench::agent {
using util::seconds_since;

std::string TrajectorySpec::id() const {
  PTXBENCH_CHECK(task != nullptr, "trajectory spec without a task");
  return trajectory_id(model, task->name, arch, context, sample);
}

std::string describe(const TurnEvent& event) {
  std::string line = fmt::format("{} turn {}: {}", event.trajectory_id, event.turn,
                                 eval::to_string(event.verdict));
  if (event.speedup) line += fmt::format(" {:.2f}x", *event.speedup);
  if (event.reused_saved_reply) {
    line += fmt::format(" (saved reply, eval {:.1f} s)", event.eval_seconds);
  } else {
    line +=
        fmt::format(" (model {:.1f} s, eval {:.1f} s)", event.model_seconds, event.eval_seconds);
  }
  return line;
}

TrajectoryRunner::TrajectoryRunner(const RunDirectory& directory, model::Provider& provider,
                                   EvaluateFn evaluate, AgentOptions options,
                                   std::function<void(const TurnEvent&)> on_turn)
    : directory_(directory),
      provider_(provider),
      evaluate_(std::move(evaluate)),
      options_(std::move(options)),
      on_turn_(std::move(on_turn)) {
  PTXBENCH_CHECK(options_.max_turns >= 1, "max_turns must be at least 1");
}

Trajectory TrajectoryRunner::start(const TrajectorySpec& spec, const prompt::Prompt& prompt) const {
  Trajectory trajectory;
  TrajectoryInfo& info = trajectory.info;
  info.id = spec.id();
  info.model = spec.model;
  info.provider = spec.provider;
  info.task = spec.task->name;
  info.arch = spec.arch;
  info.context_level = spec.context;
  info.sample = spec.sample;
  info.split = spec.task->split;
  info.max_turns = options_.max_turns;
  info.ptxbench_version = std::string(config::kVersion);
  info.created_at = info.updated_at = utc_timestamp();
  trajectory.messages.push_back({.role = "system", .content = prompt.system});
  trajectory.messages.push_back({.role = "user", .content = prompt.task});
  return trajectory;
}

Trajectory TrajectoryRunner::run(const TrajectorySpec& spec, const prompt::Prompt& prompt,
                                 std::optional<Trajectory> existing) {
  Trajectory trajectory = existing ? std::move(*existing) : start(spec, prompt);
  if (trajectory.info.status == TrajectoryStatus::kFinished) return trajectory;
  if (trajectory.info.status == TrajectoryStatus::kFailed) {
    // A provider failure may have passed (an outage, a quota): try again from the last turn.
    trajectory.info.status = TrajectoryStatus::kRunning;
    trajectory.info.exit_status.clear();
    trajectory.info.error.clear();
  }
  trajectory.info.max_turns = options_.max_turns;
  if (!existing) directory_.save_trajectory(trajectory);
  finish_if_done(trajectory);
  while (!trajectory.done()) {
    std::optional<TurnEvent> event = run_turn(spec, trajectory);
    if (!event) break;
    finish_if_done(trajectory);
    trajectory.info.updated_at = utc_timestamp();
    directory_.save_trajectory(trajectory);
    if (on_turn_) on_turn_(*event);
  }
  return trajectory;
}

void TrajectoryRunner::finish_if_done(Trajectory& trajectory) const {
  if (trajectory.done()) return;
  if (!trajectory.turns.empty() && options_.target_speedup) {
    const eval::Evaluation& last = trajectory.turns.back().evaluation;
    auto speedup = last.headline_speedup();
    if (last.verified() && speedup && *speedup >= *options_.target_speedup) {
      trajectory.info.status = TrajectoryStatus::kFinished;
      trajectory.info.exit_status = exit_status::kTargetSpeedup;
      return;
    }
  }
  if (trajectory.completed_turns() >= options_.max_turns) {
    trajectory.info.status = TrajectoryStatus::kFinished;
    trajectory.info.exit_status = exit_status::kMaxTurns;
  }
}

namespace {

// A provider's failure ends the trajectory: a replay without more replies as finished, any other
// failure as failed (run() reopens it).
void record_provider_failure(TrajectoryInfo& info, const model::ProviderError& error, int turn) {
  if (error.exhausted) {
    info.status = TrajectoryStatus::kFinished;
    info.exit_status = exit_status::kReplayExhausted;
    // Nothing recorded at all is worth saying why (a misnamed replay file).
    if (turn == 1) info.error = error.message;
  } else {
    info.status = TrajectoryStatus::kFailed;
    info.exit_status = exit_status::kProviderError;
    info.error = fmt::format("turn {}: {} (after {} attempt{})", turn, error.message,
                             error.attempts, error.attempts == 1 ? "" : "s");
  }
  info.updated_at = utc_timestamp();
}

// The reply and the feedback as the turn's two messages; the turn's record.
TurnRecord append_turn(Trajectory& trajectory, const model::Reply& reply, int turn,
                       eval::Evaluation evaluation, std::string feedback) {
  nlohmann::json call{{"finish_reason", reply.finish_reason}, {"attempts", reply.attempts}};
  if (!reply.model.empty()) call["model"] = reply.model;
  if (!reply.source.empty()) call["source"] = reply.source;
  trajectory.messages.push_back({.role = "assistant",
                                 .content = reply.content,
                                 .reasoning_content = reply.reasoning_content,
                                 .turn = turn,
                                 .extra = std::move(call)});
  trajectory.messages.push_back({.role = "user", .content = feedback, .turn = turn});
  TurnRecord record{.turn = turn,
                    .usage = reply.usage,
                    .latency_s = reply.latency_s,
                    .evaluation = std::move(evaluation),
                    .feedback = std::move(feedback)};
  if (record.evaluation.verdict != eval::Verdict::kNoCode &&
      !record.evaluation.source_hash.empty()) {
    record.code_hash = record.evaluation.source_hash;
  }
  return record;
}

}  // namespace

std::optional<model::Reply> TrajectoryRunner::reply_for_turn(const TrajectorySpec& spec,
                                                             Trajectory& trajectory, int turn,
                                                             TurnEvent& event) {
  const std::string& id = trajectory.info.id;
  std::optional<model::Reply> reply = directory_.load_saved_reply(id, turn);
  event.reused_saved_reply = reply.has_value();
  if (reply) return reply;
  model::CallContext context{.trajectory_id = id,
                             .task = spec.task->name,
                             .arch = std::string(arch::to_string(spec.arch)),
                             .context_level = std::string(prompt::to_string(spec.context)),
                             .sample = spec.sample,
                             .turn = turn};
  auto started = std::chrono::steady_clock::now();
  model::CallResult result =
      provider_.complete(request_messages(trajectory.messages, options_.history), context);
  event.model_seconds = seconds_since(started);
  if (!result.ok()) {
    record_provider_failure(trajectory.info, result.error(), turn);
    directory_.save_trajectory(trajectory);
    return std::nullopt;
  }
  reply = std::move(result.reply());
  directory_.save_reply(id, turn, *reply);
  return reply;
}

std::string TrajectoryRunner::feedback_for_turn(const TrajectorySpec& spec,
                                                const Trajectory& trajectory,
                                                const std::string& reply,
                                                const eval::Evaluation& evaluation,
                                                int turn) const {
  std::string feedback =
      render_feedback(evaluation, FeedbackOptions{.turn = turn,
                                                  .max_turns = options_.max_turns,
                                                  .target_speedup = options_.target_speedup});
  // Not after the last turn: no model reads that feedback.
  if (options_.failure_context && spec.context == prompt::ContextLevel::kRetrieval &&
      turn < options_.max_turns) {
    std::string more =
        options_.failure_context(*spec.task, spec.arch, trajectory, reply, evaluation, feedback);
    if (!more.empty()) feedback += "\n\n" + more;
  }
  return feedback;
}

std::optional<TurnEvent> TrajectoryRunner::run_turn(const TrajectorySpec& spec,
                                                    Trajectory& trajectory) {
  const int turn = trajectory.completed_turns() + 1;
  TurnEvent event{.trajectory_id = trajectory.info.id, .turn = turn};
  std::optional<model::Reply> reply = reply_for_turn(spec, trajectory, turn, event);
  if (!reply) return std::nullopt;

  auto started = std::chrono::steady_clock::now();
  eval::CandidateInput input{
      .text = reply->content,
      .is_markdown = true,
      .source_name = reply->source.empty() ? fmt::format("turn {}", turn) : reply->source};
  eval::Evaluation evaluation = evaluate_(*spec.task, spec.arch, input);
  event.eval_seconds = seconds_since(started);
  std::string feedback = feedback_for_turn(spec, trajectory, reply->content, evaluation, turn);
  TurnRecord record =
      append_turn(trajectory, *reply, turn, std::move(evaluation), std::move(feedback));
  event.verdict = record.evaluation.verdict;
  event.speedup = record.evaluation.headline_speedup();
  trajectory.turns.push_back(std::move(record));
  return event;
}

}  // namespace ptxbench::agent
