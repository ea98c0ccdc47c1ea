// The RL environment over the evaluation queue. reset(task, arch, context level, seed) opens a
// session and returns the model's first two messages (the prompt `ptxbench prompt` prints);
// step(reply) evaluates the reply like any submitted evaluation (same queue, same limits) and
// returns the feedback text a model gets in `ptxbench run`, the reward (reward.hpp), whether the
// episode is over, and the evaluation record. An episode ends at its turn limit, or once a
// PASSED candidate reaches the target speedup when one is set. Sessions are kept in the journal
// (session_store.hpp) and survive a restart, with the evaluation of a step under way: the same
// reply sent again after a restart gets that evaluation's result, never a second evaluation.
// A session idle for longer than its limit expires; close() ends one; the sessions of a client
// and of the service are bounded (an ended episode's session gives way to a new one).
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/prompt/context_level.hpp"
#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/serve/job_queue.hpp"
#include "ptxbench/serve/reward.hpp"
#include "ptxbench/serve/session_store.hpp"

namespace ptxbench::serve {

struct ResetRequest {
  std::optional<std::string> task;  // absent: the seed picks one of the split's tasks
  std::string split = "train";
  arch::Arch arch = arch::Arch::kHopper;
  prompt::ContextLevel context = prompt::ContextLevel::kNone;
  std::uint64_t seed = 0;
  int max_turns = 8;
  std::optional<double> target_speedup;
  std::optional<RewardConfig> reward;  // absent: the service's reward function
};

struct SessionLimits {
  std::chrono::milliseconds idle_timeout = std::chrono::hours(1);  // then the session expires
  std::size_t per_client = 256;  // sessions one client holds at once; more get 429
  std::size_t total = 10'000;    // sessions of all clients (their memory); more get 503
};

struct Message {
  std::string role;  // "system", "user"
  std::string content;
};

struct ResetResult {
  std::string session;
  std::string task;
  std::vector<Message> messages;
};

struct StepResult {
  int turn = 0;
  std::string evaluation_id;
  std::string feedback;  // the next user message
  std::optional<double> reward;
  nlohmann::json reward_parts;  // reward.hpp's RewardParts: what a trainer shapes its own from
  bool done = false;
  nlohmann::json record;
};

// What went wrong with a reset or step, for the HTTP status.
enum class EnvError { kBadRequest, kNotFound, kConflict, kRefused, kUnavailable };
struct EnvFailure {
  EnvError kind = EnvError::kBadRequest;
  std::string message;
  SubmitStatus refusal = SubmitStatus::kAccepted;  // for kRefused
};

template <class T>
struct EnvOutcome {
  std::optional<T> value;
  EnvFailure failure;
};

// The retrieval context level's texts (fixit/retrieve.hpp; `ptxbench serve --fixit FOLDER`), as
// in `ptxbench run`: repairs in the system prompt, and after a failing turn the repairs of
// failures like it. Unset: a reset with context retrieval is refused.
struct RetrievalHooks {
  prompt::ContextHook first_turn;
  agent::FailureContextFn after_failure;
};

class RlEnvironment {
 public:
  // `sessions_dir`: where the sessions are kept (read back here).
  RlEnvironment(const std::vector<task::Task>& suite, std::filesystem::path context_dir,
                JobQueue& queue, RewardConfig reward, SessionLimits limits,
                std::filesystem::path sessions_dir, RetrievalHooks retrieval = {});

  EnvOutcome<ResetResult> reset(const ResetRequest& request, const Client& client);
  // Blocks until the reply is evaluated.
  EnvOutcome<StepResult> step(const std::string& session, const std::string& reply,
                              const Client& client);
  // Ends a session of the client (not while a step of it is being evaluated).
  EnvOutcome<bool> close(const std::string& session, const Client& client);
  const RewardConfig& reward() const { return reward_; }
  // The retrieval level's first-turn text (unset without `serve --fixit`), for the prompt route.
  const prompt::ContextHook& retrieval_prompt() const { return retrieval_.first_turn; }
  std::size_t session_count() const;
  const std::vector<std::string>& recovery_problems() const { return recovery_problems_; }

 private:
  struct Session {
    std::string client;
    const task::Task* task = nullptr;
    ResetRequest request;
    int turn = 0;
    bool busy = false;  // a step is being evaluated
    bool done = false;
    agent::Trajectory conversation;  // messages only: what retrieval has shown already
    std::int64_t last_used_ms = 0;   // system clock, so that expiry holds across a restart
    std::string pending_evaluation;  // the evaluation of the step under way, or cut short
    std::string pending_reply;       // the hash of its reply
  };
  static nlohmann::json to_json(const Session& session);
  // A copy of the client's session, marked busy for the step; or why it cannot step now.
  EnvOutcome<Session> claim(const std::string& id, const std::string& reply_hash,
                            const Client& client);
  // The step's result from its evaluation: feedback (with retrieval's), reward, whether done.
  StepResult step_result(const Session& session, int turn, const std::string& reply,
                         std::string evaluation_id, const eval::Evaluation& evaluation,
                         nlohmann::json record) const;
  void save(const std::string& id, const Session& session);                   // mutex_ held
  void forget(const std::string& id);                                         // mutex_ held
  void expire_idle();                                                         // mutex_ held
  bool make_room(const std::string& client);                                  // mutex_ held
  std::map<std::string, Session>::iterator find_live(const std::string& id);  // mutex_ held

  const std::vector<task::Task>& suite_;
  std::filesystem::path context_dir_;
  JobQueue& queue_;
  RewardConfig reward_;
  SessionLimits limits_;
  SessionStore store_;
  RetrievalHooks retrieval_;
  mutable std::mutex mutex_;
  std::map<std::string, Session> sessions_;
  std::map<std::string, std::size_t> per_client_;
  std::vector<std::string> recovery_problems_;
};

nlohmann::json to_json(const ResetResult& result);
nlohmann::json to_json(const StepResult& result);

}  // namespace ptxbench::serve
