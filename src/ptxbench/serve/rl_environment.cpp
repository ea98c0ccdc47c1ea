#include "ptxbench/serve/rl_environment.hpp"

#include <fmt/format.h>

#include <chrono>
#include <random>
#include <stdexcept>

#include "ptxbench/agent/feedback.hpp"
#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/hash.hpp"

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

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

nlohmann::json request_json(const ResetRequest& r) {
  nlohmann::json out{{"split", r.split},
                     {"arch", arch::to_string(r.arch)},
                     {"context", prompt::to_string(r.context)},
                     {"seed", r.seed},
                     {"max_turns", r.max_turns}};
  if (r.task) out["task"] = *r.task;
  if (r.target_speedup) out["target_speedup"] = *r.target_speedup;
  if (r.reward) out["reward"] = serve::to_json(*r.reward);  // the episode's own reward function
  return out;
}

std::optional<ResetRequest> request_from_json(const nlohmann::json& j) {
  try {
    ResetRequest r;
    if (j.contains("task")) r.task = j.at("task").get<std::string>();
    r.split = j.at("split").get<std::string>();
    auto arch = arch::parse(j.at("arch").get<std::string>());
    auto context = prompt::parse_context_level(j.at("context").get<std::string>());
    if (!arch || !context) return std::nullopt;
    r.arch = *arch;
    r.context = *context;
    r.seed = j.at("seed").get<std::uint64_t>();
    r.max_turns = j.at("max_turns").get<int>();
    if (j.contains("target_speedup")) r.target_speedup = j.at("target_speedup").get<double>();
    if (j.contains("reward")) {
      auto reward = reward_config_from_json(j.at("reward"), "reward");
      if (!reward) return std::nullopt;
      r.reward = *reward;
    }
    return r;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

nlohmann::json RlEnvironment::to_json(const Session& s) {
  return {{"client", s.client},
          {"task", s.task->name},
          {"request", request_json(s.request)},
          {"turn", s.turn},
          {"done", s.done},
          {"last_used_ms", s.last_used_ms},
          {"pending_evaluation", s.pending_evaluation},
          {"pending_reply", s.pending_reply}};
}

RlEnvironment::RlEnvironment(const std::vector<task::Task>& suite,
                             std::filesystem::path context_dir, JobQueue& queue,
                             RewardConfig reward, SessionLimits limits,
                             std::filesystem::path sessions_dir, RetrievalHooks retrieval)
    : suite_(suite),
      context_dir_(std::move(context_dir)),
      queue_(queue),
      reward_(reward),
      limits_(limits),
      store_(std::move(sessions_dir)),
      retrieval_(std::move(retrieval)) {
  for (auto& [id, json] : store_.load(recovery_problems_)) {
    Session s;
    std::optional<ResetRequest> request;
    try {
      s.client = json.at("client").get<std::string>();
      s.task = task::find_task(suite_, json.at("task").get<std::string>());
      request = request_from_json(json.at("request"));
      s.turn = json.at("turn").get<int>();
      s.done = json.at("done").get<bool>();
      s.last_used_ms = json.at("last_used_ms").get<std::int64_t>();
      s.pending_evaluation = json.value("pending_evaluation", "");
      s.pending_reply = json.value("pending_reply", "");
    } catch (const nlohmann::json::exception& error) {
      recovery_problems_.push_back(fmt::format("session {}: {}", id, error.what()));
      store_.remove(id);
      continue;
    }
    if (!s.task || !request) {
      recovery_problems_.push_back(
          fmt::format("session {}: its task or request is not one of this service", id));
      store_.remove(id);
      continue;
    }
    s.request = *request;
    ++per_client_[s.client];
    sessions_.emplace(id, std::move(s));
  }
  std::lock_guard lock(mutex_);
  expire_idle();
}

void RlEnvironment::save(const std::string& id, const Session& session) {
  store_.save(id, to_json(session));
}

void RlEnvironment::forget(const std::string& id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return;
  if (--per_client_[it->second.client] == 0) per_client_.erase(it->second.client);
  sessions_.erase(it);
  store_.remove(id);
}

void RlEnvironment::expire_idle() {
  const auto oldest = now_ms() - limits_.idle_timeout.count();
  std::vector<std::string> expired;
  for (const auto& [id, s] : sessions_) {
    if (!s.busy && s.last_used_ms < oldest) expired.push_back(id);
  }
  for (const auto& id : expired) forget(id);
}

// At a limit, an ended episode's session (the client's own for the per-client limit), least
// recently used first, gives way; true when there is room for one more session of `client`.
bool RlEnvironment::make_room(const std::string& client) {
  for (;;) {
    const bool client_full = per_client_[client] >= limits_.per_client;
    const bool service_full = sessions_.size() >= limits_.total;
    if (!client_full && !service_full) return true;
    const Session* oldest = nullptr;
    std::string oldest_id;
    for (const auto& [id, s] : sessions_) {
      if (!s.done || s.busy || (client_full && s.client != client)) continue;
      if (!oldest || s.last_used_ms < oldest->last_used_ms) {
        oldest = &s;
        oldest_id = id;
      }
    }
    if (!oldest) return false;
    forget(oldest_id);
  }
}

std::map<std::string, RlEnvironment::Session>::iterator RlEnvironment::find_live(
    const std::string& id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return it;
  if (!it->second.busy && it->second.last_used_ms < now_ms() - limits_.idle_timeout.count()) {
    forget(id);
    return sessions_.end();
  }
  return it;
}

std::size_t RlEnvironment::session_count() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

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
  expire_idle();
  if (!make_room(client.name)) {
    if (per_client_[client.name] >= limits_.per_client) {
      EnvOutcome<ResetResult> out = failure<ResetResult>(
          EnvError::kRefused, fmt::format("client {} already holds {} sessions; close one (DELETE "
                                          "/v1/env/sessions/ID) or let it expire",
                                          client.name, limits_.per_client));
      out.failure.refusal = SubmitStatus::kClientLimit;
      return out;
    }
    return failure<ResetResult>(
        EnvError::kUnavailable,
        fmt::format("the service holds its limit of {} sessions", limits_.total));
  }
  result.session = make_session_id();
  Session session{
      .client = client.name, .task = task, .request = request, .last_used_ms = now_ms()};
  for (const auto& m : result.messages)
    session.conversation.messages.push_back({.role = m.role, .content = m.content});
  save(result.session, session);  // on disk before the client hears of it
  ++per_client_[client.name];
  sessions_.emplace(result.session, std::move(session));
  return {.value = std::move(result)};
}

EnvOutcome<RlEnvironment::Session> RlEnvironment::claim(const std::string& id,
                                                        const std::string& reply_hash,
                                                        const Client& client) {
  std::lock_guard lock(mutex_);
  auto it = find_live(id);
  if (it == sessions_.end() || it->second.client != client.name)
    return failure<Session>(EnvError::kNotFound,
                            "session: no such session (closed, expired or never opened)");
  auto& stored = it->second;
  if (stored.done)
    return failure<Session>(EnvError::kConflict, "session: the episode is over; reset");
  if (stored.busy)
    return failure<Session>(EnvError::kConflict, "session: a step is still being evaluated");
  if (!stored.pending_evaluation.empty() && stored.pending_reply != reply_hash)
    return failure<Session>(
        EnvError::kConflict,
        fmt::format("session: the reply of turn {} is still being evaluated as {}; send that "
                    "reply again for its result",
                    stored.turn + 1, stored.pending_evaluation));
  stored.busy = true;
  stored.last_used_ms = now_ms();
  return {.value = stored};
}

StepResult RlEnvironment::step_result(const Session& session, int turn, const std::string& reply,
                                      std::string evaluation_id, const eval::Evaluation& evaluation,
                                      nlohmann::json record) const {
  const auto& request = session.request;
  StepResult result{
      .turn = turn,
      .evaluation_id = std::move(evaluation_id),
      .feedback = agent::render_feedback(
          evaluation,
          {.turn = turn, .max_turns = request.max_turns, .target_speedup = request.target_speedup}),
      .reward = reward_of(evaluation, request.reward.value_or(reward_)),
      .reward_parts = serve::to_json(reward_parts(evaluation)),
      .record = std::move(record)};
  const auto speedup = evaluation.headline_speedup();
  const bool reached_target = request.target_speedup && evaluation.verified() && speedup &&
                              *speedup >= *request.target_speedup;
  result.done = turn >= request.max_turns || reached_target;
  // As `ptxbench run` does: not after the last turn, which no model reads.
  if (request.context == prompt::ContextLevel::kRetrieval && retrieval_.after_failure &&
      !result.done) {
    const auto more = retrieval_.after_failure(*session.task, request.arch, session.conversation,
                                               reply, evaluation, result.feedback);
    if (!more.empty()) result.feedback += "\n\n" + more;
  }
  return result;
}

EnvOutcome<StepResult> RlEnvironment::step(const std::string& session_id, const std::string& reply,
                                           const Client& client) {
  const auto reply_hash = util::hash_hex(reply);
  auto claimed = claim(session_id, reply_hash, client);
  if (!claimed.value) return {.failure = std::move(claimed.failure)};
  const Session session = std::move(*claimed.value);
  const int turn = session.turn + 1;
  // Back in the map (the session may have been closed meanwhile only if not busy: it was not).
  auto release = [&](bool advanced, bool done, const std::string& pending,
                     const std::string& feedback = {}) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(session_id);
    if (it == sessions_.end()) return;
    auto& stored = it->second;
    stored.busy = false;
    stored.last_used_ms = now_ms();
    if (advanced) {
      stored.turn = turn;
      stored.conversation.messages.push_back({.role = "assistant", .content = reply});
      stored.conversation.messages.push_back({.role = "user", .content = feedback});
    }
    stored.done = stored.done || done;
    stored.pending_evaluation = pending;
    stored.pending_reply = pending.empty() ? "" : reply_hash;
    save(session_id, stored);
  };

  auto evaluation_id = session.pending_evaluation;
  if (evaluation_id.empty()) {
    auto submitted = queue_.submit({.task = session.task->name,
                                    .arch = session.request.arch,
                                    .text = reply,
                                    .is_markdown = true,
                                    .source_name = fmt::format("{} turn {}", session_id, turn)},
                                   client);
    if (submitted.status != SubmitStatus::kAccepted) {
      release(false, false, "");
      EnvOutcome<StepResult> out = failure<StepResult>(EnvError::kRefused, submitted.message);
      out.failure.refusal = submitted.status;
      return out;
    }
    evaluation_id = submitted.id;
    std::lock_guard lock(mutex_);
    auto& stored = sessions_.at(session_id);
    stored.pending_evaluation = evaluation_id;
    stored.pending_reply = reply_hash;
    save(session_id, stored);  // a restart from here on finds the evaluation, not a new one
  }
  auto record = queue_.wait_done(evaluation_id);
  if (!record) {
    if (queue_.draining()) {
      release(false, false, evaluation_id);
      return failure<StepResult>(
          EnvError::kUnavailable,
          "the service is shutting down; the evaluation stays queued as " + evaluation_id +
              ": send the same reply to the restarted service for its result");
    }
    release(false, false, "");
    return failure<StepResult>(EnvError::kConflict,
                               "the evaluation " + evaluation_id +
                                   " of this turn is no longer kept; send the reply again");
  }
  auto evaluation = eval::evaluation_from_json(*record);
  if (!evaluation) {
    release(false, false, "");
    throw std::runtime_error("evaluation record does not read back: " + evaluation.error().message);
  }
  auto result = step_result(session, turn, reply, evaluation_id, *evaluation, std::move(*record));
  release(true, result.done, "", result.feedback);
  return {.value = std::move(result)};
}

EnvOutcome<bool> RlEnvironment::close(const std::string& session_id, const Client& client) {
  std::lock_guard lock(mutex_);
  auto it = find_live(session_id);
  if (it == sessions_.end() || it->second.client != client.name)
    return failure<bool>(EnvError::kNotFound,
                         "session: no such session (closed, expired or never opened)");
  if (it->second.busy)
    return failure<bool>(EnvError::kConflict, "session: a step is still being evaluated");
  forget(session_id);
  return {.value = true};
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
