#include "ptxbench/report/like_for_like.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace ptxbench::report {

std::optional<double> median_first_prompt_tokens(const TrajectorySet& trajectories) {
  std::vector<double> sizes;
  for (const auto* t : trajectories) {
    if (!t->turns.empty() && t->turns.front().prompt_tokens) {
      sizes.push_back(static_cast<double>(*t->turns.front().prompt_tokens));
    }
  }
  if (sizes.empty()) return std::nullopt;
  std::sort(sizes.begin(), sizes.end());
  const auto mid = sizes.size() / 2;
  return sizes.size() % 2 == 1 ? sizes[mid] : (sizes[mid - 1] + sizes[mid]) / 2;
}

bool is_like_for_like(std::optional<double> prompt_tokens) {
  return prompt_tokens && *prompt_tokens >= kPublishedPromptTokensLow / kLikeForLikeSlack &&
         *prompt_tokens <= kPublishedPromptTokensHigh * kLikeForLikeSlack;
}

std::string like_for_like(std::optional<double> prompt_tokens) {
  const std::string published =
      fmt::format("{:.0f}–{:.0f}k published", kPublishedPromptTokensLow / 1000,
                  kPublishedPromptTokensHigh / 1000);
  if (!prompt_tokens) return "unknown: no prompt tokens recorded";
  const std::string ours = fmt::format("≈{:.1f}k tokens", *prompt_tokens / 1000);
  if (is_like_for_like(prompt_tokens)) return fmt::format("yes ({} against {})", ours, published);
  return fmt::format("no: {} against {}", ours, published);
}

}  // namespace ptxbench::report
