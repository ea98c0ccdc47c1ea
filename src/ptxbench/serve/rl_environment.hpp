// The RL environment over the evaluation queue. reset(task, arch, context level, seed) opens a
// session and returns the model's first two messages (the prompt `ptxbench prompt` prints);
// step(reply) evaluates the reply like any submitted evaluation (same queue, same limits) and
// returns the feedback text a model gets in `ptxbench run`, the reward (reward.hpp), whether the
// episode is over, and the evaluation record. An episode ends at its turn limit, or once a
// PASSED candidate reaches the target speedup when one is set. Sessions live in memory.
#pragma once
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
  RlEnvironment(const std::vector<task::Task>& suite, std::filesystem::path context_dir,
                JobQueue& queue, RewardConfig reward, RetrievalHooks retrieval = {});

  EnvOutcome<ResetResult> reset(const ResetRequest& request, const Client& client);
  // Blocks until the reply is evaluated.
  EnvOutcome<StepResult> step(const std::string& session, const std::string& reply,
                              const Client& client);
  const RewardConfig& reward() const { return reward_; }

 private:
  struct Session {
    std::string client;
    const task::Task* task = nullptr;
    ResetRequest request;
    int turn = 0;
    bool busy = false;  // a step is being evaluated
    bool done = false;
    agent::Trajectory conversation;  // messages only: what retrieval has shown already
  };

  const std::vector<task::Task>& suite_;
  std::filesystem::path context_dir_;
  JobQueue& queue_;
  RewardConfig reward_;
  RetrievalHooks retrieval_;
  std::mutex mutex_;
  std::map<std::string, Session> sessions_;
};

nlohmann::json to_json(const ResetResult& result);
nlohmann::json to_json(const StepResult& result);

}  // namespace ptxbench::serve
