#include "ptxbench/serve/rl_environment.hpp"

#include <fmt/format.h>

#include <random>
#include <stdexcept>

#include "ptxbench/agent/feedback.hpp"
#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::serve {
namespace {

template <class T>
EnvOutcome<T> failure(EnvError kind, std::string message) {
  return {.failure = {.kind = kind, .message = std::move(message)}};
}

std::string make_session_id() {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  return fmt::format("s{:016x}", generator());
}

}  // namespace

RlEnvironment::RlEnvironment(const std::vector<task::Task>& suite,
                             std::filesystem::path context_dir, JobQueue& queue,
                             RewardConfig reward, RetrievalHooks retrieval)
    : suite_(suite),
      context_dir_(std::move(context_dir)),
      queue_(queue),
      reward_(reward),
      retrieval_(std::move(retrieval)) {}

EnvOutcome<ResetResult> RlEnvironment::reset(const ResetRequest& request, const Client& client) {
  if (request.max_turns < 1)
    return failure<ResetResult>(EnvError::kBadRequest, "max_turns: must be >= 1");
  const task::Task* task = nullptr;
  if (request.task) {
    task = task::find_task(suite_, *request.task);
    if (!task)
      return failure<ResetResult>(EnvError::kBadRequest,
                                  fmt::format("task: no task named {}", *request.task));
  } else {
    std::vector<const task::Task*> split;
    for (const auto& t : suite_) {
      if (t.split == request.split) split.push_back(&t);
    }
    if (split.empty())
      return failure<ResetResult>(EnvError::kBadRequest,
                                  fmt::format("split: no tasks in split {}", request.split));
    // The seed alone decides the task, the same on every service of the same suite.
    task = split[request.seed % split.size()];
  }
  const bool retrieval = request.context == prompt::ContextLevel::kRetrieval;
  if (retrieval && !retrieval_.first_turn)
    return failure<ResetResult>(EnvError::kBadRequest,
                                "context: retrieval needs a Fixit folder on the service (ptxbench "
                                "serve --fixit FOLDER)");
  auto prompt = prompt::build_prompt(*task, request.arch, request.context, context_dir_,
                                     retrieval_.first_turn);
  if (!prompt) return failure<ResetResult>(EnvError::kUnavailable, prompt.error().message);

  ResetResult result{.task = task->name,
                     .messages = {{.role = "system", .content = prompt->system},
                                  {.role = "user", .content = prompt->task}}};
  std::lock_guard lock(mutex_);
  result.session = make_session_id();
  auto& session = sessions_[result.session];
  session = {.client = client.name, .task = task, .request = request};
  for (const auto& m : result.messages)
    session.conversation.messages.push_back({.role = m.role, .content = m.content});
  return {.value = std::move(result)};
}

EnvOutcome<StepResult> RlEnvironment::step(const std::string& session_id, const std::string& reply,
                                           const Client& client) {
  Session session;
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(session_id);
    if (it == sessions_.end() || it->second.client != client.name)
      return failure<StepResult>(EnvError::kNotFound, "session: no such session");
    if (it->second.done)
      return failure<StepResult>(EnvError::kConflict, "session: the episode is over; reset");
    if (it->second.busy)
      return failure<StepResult>(EnvError::kConflict, "session: a step is still being evaluated");
    it->second.busy = true;
    session = it->second;
  }
  const int turn = session.turn + 1;
  auto release = [&](bool advanced, bool done, const std::string& feedback = {}) {
    std::lock_guard lock(mutex_);
    auto& stored = sessions_[session_id];
    stored.busy = false;
    if (advanced) {
      stored.turn = turn;
      stored.conversation.messages.push_back({.role = "assistant", .content = reply});
      stored.conversation.messages.push_back({.role = "user", .content = feedback});
    }
    stored.done = stored.done || done;
  };

  auto submitted = queue_.submit({.task = session.task->name,
                                  .arch = session.request.arch,
                                  .text = reply,
                                  .is_markdown = true,
                                  .source_name = fmt::format("{} turn {}", session_id, turn)},
                                 client);
  if (submitted.status != SubmitStatus::kAccepted) {
    release(false, false);
    EnvOutcome<StepResult> out = failure<StepResult>(EnvError::kRefused, submitted.message);
    out.failure.refusal = submitted.status;
    return out;
  }
  auto record = queue_.wait_done(submitted.id);
  if (!record) {
    release(false, false);
    return failure<StepResult>(
        EnvError::kUnavailable,
        "the service is shutting down; the evaluation stays queued as " + submitted.id);
  }
  auto evaluation = eval::evaluation_from_json(*record);
  if (!evaluation) {
    release(false, false);
    throw std::runtime_error("evaluation record does not read back: " + evaluation.error().message);
  }
  const auto& request = session.request;
  StepResult result{
      .turn = turn,
      .evaluation_id = submitted.id,
      .feedback = agent::render_feedback(
          *evaluation,
          {.turn = turn, .max_turns = request.max_turns, .target_speedup = request.target_speedup}),
      .reward = reward_of(*evaluation, request.reward.value_or(reward_)),
      .reward_parts = to_json(reward_parts(*evaluation)),
      .record = std::move(*record)};
  const auto speedup = evaluation->headline_speedup();
  const bool reached_target = request.target_speedup && evaluation->verified() && speedup &&
                              *speedup >= *request.target_speedup;
  result.done = turn >= request.max_turns || reached_target;
  // As `ptxbench run` does: not after the last turn, which no model reads.
  if (request.context == prompt::ContextLevel::kRetrieval && retrieval_.after_failure &&
      !result.done) {
    const auto more = retrieval_.after_failure(*session.task, request.arch, session.conversation,
                                               reply, *evaluation, result.feedback);
    if (!more.empty()) result.feedback += "\n\n" + more;
  }
  release(true, result.done, result.feedback);
  return {.value = std::move(result)};
}

nlohmann::json to_json(const ResetResult& result) {
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& m : result.messages)
    messages.push_back({{"role", m.role}, {"content", m.content}});
  return {{"session", result.session}, {"task", result.task}, {"messages", messages}};
}

nlohmann::json to_json(const StepResult& result) {
  return {{"turn", result.turn},
          {"evaluation_id", result.evaluation_id},
          {"feedback", result.feedback},
          {"reward", result.reward ? nlohmann::json(*result.reward) : nlohmann::json(nullptr)},
          {"reward_parts", result.reward_parts},
          {"done", result.done},
          {"record", result.record}};
}

}  // namespace ptxbench::serve
