// Whether one of our cells and the published rows asked the model with prompts of the same size.
// The published runs record no context level; their system prompts hold 22k to 31k tokens
// (PTXBench's prompts as published; docs/reports.md maps each of our levels to the nearest one).
// Ours vary from ~2k (none) to ~40k (examples) tokens, so a published figure beside a cell whose
// prompt is much smaller or larger is not like for like, and the tables say so.
#pragma once
#include <optional>
#include <string>

#include "ptxbench/report/metrics.hpp"

namespace ptxbench::report {

inline constexpr double kPublishedPromptTokensLow = 22'000;
inline constexpr double kPublishedPromptTokensHigh = 31'000;
// A cell within this factor of the published range counts as like for like.
inline constexpr double kLikeForLikeSlack = 1.25;

// The median first-turn prompt size (provider-counted tokens) of the trajectories; nullopt when
// none recorded it.
std::optional<double> median_first_prompt_tokens(const TrajectorySet& trajectories);

// "yes (≈24k tokens)", "no: ≈11k tokens against 22–31k published", "unknown: ...".
std::string like_for_like(std::optional<double> prompt_tokens);
bool is_like_for_like(std::optional<double> prompt_tokens);

}  // namespace ptxbench::report
