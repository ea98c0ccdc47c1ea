#include "ptxbench/agent/history.hpp"

#include <fmt/format.h>

#include <charconv>

namespace ptxbench::agent {

std::string HistoryPolicy::describe() const {
  return last_k ? fmt::format("last-{}", *last_k) : std::string("full");
}

util::Expected<HistoryPolicy> parse_history_policy(std::string_view text) {
  if (text == "full") return HistoryPolicy{};
  constexpr std::string_view kPrefix = "last-";
  if (text.starts_with(kPrefix)) {
    int k = 0;
    auto digits = text.substr(kPrefix.size());
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
    if (error == std::errc() && end == digits.data() + digits.size() && k >= 1) {
      return HistoryPolicy{.last_k = k};
    }
  }
  return util::make_error(fmt::format("history '{}': expected full or last-K with K >= 1", text));
}

model::Conversation request_messages(const std::vector<TrajectoryMessage>& messages,
                                     const HistoryPolicy& policy) {
  // The first messages without a turn are the prompts (system, task); they are always kept.
  std::size_t prompts = 0;
  while (prompts < messages.size() && !messages[prompts].turn) ++prompts;
  std::size_t first_kept = prompts;
  if (policy.last_k) {
    // Walk back over whole turns: every message of a turn carries the same "turn" number.
    int turns_seen = 0;
    std::optional<int> current;
    for (std::size_t i = messages.size(); i > prompts; --i) {
      int turn = messages[i - 1].turn.value_or(0);
      if (!current || turn != *current) {
        if (turns_seen == *policy.last_k) break;
        current = turn;
        ++turns_seen;
      }
      first_kept = i - 1;
    }
  }
  model::Conversation out;
  for (std::size_t i = 0; i < prompts; ++i) out.push_back({messages[i].role, messages[i].content});
  for (std::size_t i = first_kept; i < messages.size(); ++i) {
    out.push_back({messages[i].role, messages[i].content});
  }
  return out;
}

}  // namespace ptxbench::agent
