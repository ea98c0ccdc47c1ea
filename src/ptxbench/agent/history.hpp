// Which part of a trajectory's conversation is sent to the model: all of it, or the system
// and task prompts plus the last k turns (each turn: the reply and its feedback).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/model/message.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::agent {

struct HistoryPolicy {
  std::optional<int> last_k;  // nullopt: full history

  std::string describe() const;  // "full" or "last-3"
};

// "full", "last-K" (K >= 1).
util::Expected<HistoryPolicy> parse_history_policy(std::string_view text);

// The request for the next turn. Reasoning content is not sent back (the APIs do not take it).
model::Conversation request_messages(const std::vector<TrajectoryMessage>& messages,
                                     const HistoryPolicy& policy);

}  // namespace ptxbench::agent
