// The turn loop of one trajectory: ask the model (or take a reply saved before a kill), save
// the reply, evaluate it, render the feedback, append the turn and rewrite the trajectory file;
// stop at the turn limit, at the target speedup, when a replay runs out, or when the provider
// fails for good.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "ptxbench/agent/history.hpp"
#include "ptxbench/agent/run_directory.hpp"
#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/eval/candidate_input.hpp"
#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/model/provider.hpp"
#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::agent {

// The evaluation seam: the real one is the engine's (eval::Engine::function); tests pass a fake.
using EvaluateFn =
    std::function<eval::Evaluation(const task::Task&, arch::Arch, const eval::CandidateInput&)>;

// Text that follows a turn's feedback in trajectories of the retrieval context level (for the
// task, arch, the conversation so far, the reply, its evaluation and feedback); empty: nothing.
// fixit/retrieve.hpp gives the repairs of failures like this one.
using FailureContextFn = std::function<std::string(
    const task::Task&, arch::Arch, const Trajectory&, const std::string& reply,
    const eval::Evaluation&, const std::string& feedback)>;

struct AgentOptions {
  int max_turns = 8;
  HistoryPolicy history;
  std::optional<double> target_speedup;  // stop once a verified kernel reaches it
  FailureContextFn failure_context;
};

// Which trajectory to run.
struct TrajectorySpec {
  std::string model;     // the ProviderConfig's name
  std::string provider;  // its kind, for the record
  const task::Task* task = nullptr;
  arch::Arch arch = arch::Arch::kHopper;
  prompt::ContextLevel context = prompt::ContextLevel::kNone;
  int sample = 0;

  std::string id() const;
};

struct TurnEvent {
  std::string trajectory_id;
  int turn = 0;
  eval::Verdict verdict = eval::Verdict::kInternalError;
  std::optional<double> speedup;
  double model_seconds = 0;  // 0 for a reply saved before a kill
  double eval_seconds = 0;
  bool reused_saved_reply = false;
};

// One line for progress output: "<id> turn 3: COMPILE_ERROR (model 41.2 s, eval 12.0 s)".
std::string describe(const TurnEvent& event);

class TrajectoryRunner {
 public:
  TrajectoryRunner(const RunDirectory& directory, model::Provider& provider, EvaluateFn evaluate,
                   AgentOptions options, std::function<void(const TurnEvent&)> on_turn = {});

  // Continues `existing` (from the run directory) or starts a new trajectory. A trajectory that
  // failed on a provider error is reopened; a finished one is returned unchanged.
  Trajectory run(const TrajectorySpec& spec, const prompt::Prompt& prompt,
                 std::optional<Trajectory> existing);

 private:
  Trajectory start(const TrajectorySpec& spec, const prompt::Prompt& prompt) const;
  // One turn appended; nullopt when the trajectory ended without one (provider error or replay
  // exhausted; the file is then already saved).
  std::optional<TurnEvent> run_turn(const TrajectorySpec& spec, Trajectory& trajectory);
  // The turn's reply: the one saved by an earlier run, else the model's (then saved). None when
  // the provider failed; the failure is then recorded in the saved trajectory.
  std::optional<model::Reply> reply_for_turn(const TrajectorySpec& spec, Trajectory& trajectory,
                                             int turn, TurnEvent& event);
  // The evaluator's feedback, with the retrieval context's similar repairs when it has them.
  std::string feedback_for_turn(const TrajectorySpec& spec, const Trajectory& trajectory,
                                const std::string& reply, const eval::Evaluation& evaluation,
                                int turn) const;
  void finish_if_done(Trajectory& trajectory) const;

  const RunDirectory& directory_;
  model::Provider& provider_;
  EvaluateFn evaluate_;
  AgentOptions options_;
  std::function<void(const TurnEvent&)> on_turn_;
};

}  // namespace ptxbench::agent
