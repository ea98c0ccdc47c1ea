// One conversation of one model on one task, arch, context level and sample: its messages
// (the mini-swe-agent layout) and one record per completed turn. docs/trajectory-format.md
// defines the JSON; a turn is recorded only once its evaluation and feedback exist.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "ptxbench/util/timestamps.hpp"

#include <nlohmann/json.hpp>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/model/reply.hpp"
#include "ptxbench/prompt/context_level.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::agent {

inline constexpr std::string_view kTrajectoryFormat = "mini-swe-agent-1";
inline constexpr int kPtxbenchFormat = 1;

// <model>__<task>__<arch>__<context>__s<sample>, characters outside [A-Za-z0-9._-] as '-'.
std::string trajectory_id(std::string_view model, std::string_view task, arch::Arch arch,
                          prompt::ContextLevel context, int sample);
std::string sanitize_id_part(std::string_view text);

enum class TrajectoryStatus { kRunning, kFinished, kFailed };
std::string_view to_string(TrajectoryStatus status);
std::optional<TrajectoryStatus> parse_trajectory_status(std::string_view name);

// Why a trajectory ended (info.exit_status).
namespace exit_status {
inline constexpr std::string_view kMaxTurns = "max_turns";
inline constexpr std::string_view kTargetSpeedup = "target_speedup";
inline constexpr std::string_view kProviderError = "provider_error";
inline constexpr std::string_view kReplayExhausted = "replay_exhausted";
}  // namespace exit_status

struct TrajectoryInfo {
  std::string id;
  std::string model;
  std::string provider;  // "openai", "anthropic", "command", "replay"
  std::string task;
  arch::Arch arch = arch::Arch::kHopper;
  prompt::ContextLevel context_level = prompt::ContextLevel::kNone;
  int sample = 0;
  std::string split = "train";
  int max_turns = 8;
  TrajectoryStatus status = TrajectoryStatus::kRunning;
  std::string exit_status;  // empty while running
  std::string error;        // the provider error that ended a failed trajectory
  std::string ptxbench_version;
  std::string created_at;
  std::string updated_at;
};

struct TrajectoryMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
  std::optional<std::string> reasoning_content;  // assistant messages, when the model gave it
  // The turn this message belongs to (the reply and the feedback of turn N); unset for the
  // prompts before the first turn. On disk it is the "turn" member of "extra" (the format the
  // trajectories have always had).
  std::optional<int> turn;
  // Free-form per-message data: call details on assistant messages (finish_reason, attempts,
  // the reply's source file for replays).
  nlohmann::json extra = nlohmann::json::object();
};

struct TurnRecord {
  int turn = 1;
  model::Usage usage;
  double latency_s = 0;
  std::optional<double> cost_usd;
  std::optional<std::string> code_hash;  // of the extracted code; null when the reply had none
  eval::Evaluation evaluation;
  std::string feedback;
};

struct Trajectory {
  TrajectoryInfo info;
  std::vector<TrajectoryMessage> messages;
  std::vector<TurnRecord> turns;

  int completed_turns() const { return static_cast<int>(turns.size()); }
  bool done() const { return info.status != TrajectoryStatus::kRunning; }
};

nlohmann::json to_json(const Trajectory& trajectory);
// {"prompt_tokens", "completion_tokens", "reasoning_tokens"}, null where unknown.
nlohmann::json to_json(const model::Usage& usage);
model::Usage usage_from_json(const nlohmann::json& json);
util::Expected<Trajectory> trajectory_from_json(const nlohmann::json& json);

// ISO-8601 UTC with seconds, e.g. "2026-11-29T15:00:00Z".
using util::utc_timestamp;

}  // namespace ptxbench::agent
