// The error taxonomy of one turn: its evaluation verdict, or "no turn" for a trajectory that
// ended earlier (target reached, provider failure). NOT_RUN is its own category, never a pass.
#pragma once
#include <array>
#include <optional>
#include <string_view>

#include "ptxbench/eval/evaluation.hpp"

namespace ptxbench::report {

struct Outcome {
  std::optional<eval::Verdict> verdict;  // nullopt: the trajectory has no such turn
  bool operator==(const Outcome&) const = default;
};

// Report order, best first: the order of table columns and of stacked bars (bottom to top).
inline constexpr std::array<Outcome, 15> kOutcomes{{
    {eval::Verdict::kPassed},
    {eval::Verdict::kInstructionsNotExecuted},
    {eval::Verdict::kIncorrectNumerical},
    {eval::Verdict::kInputsModified},
    {eval::Verdict::kIncorrectShape},
    {eval::Verdict::kTimeout},
    {eval::Verdict::kRuntimeError},
    {eval::Verdict::kSanitizerError},
    {eval::Verdict::kInstructionsAbsent},
    {eval::Verdict::kCompileError},
    {eval::Verdict::kForbidden},
    {eval::Verdict::kNoCode},
    {eval::Verdict::kNotRun},
    {eval::Verdict::kInternalError},
    {std::nullopt},
}};

std::size_t outcome_index(const Outcome& outcome);         // position in kOutcomes
std::string_view outcome_name(const Outcome& outcome);     // the verdict name, or "NO_TURN"
std::string_view outcome_meaning(const Outcome& outcome);  // one line for legends and docs

}  // namespace ptxbench::report
