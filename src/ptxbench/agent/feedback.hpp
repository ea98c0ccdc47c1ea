// The evaluation of one turn rendered as text for the model: verdict and stages, compiler and
// ptxas messages (trimmed), kernel resources, which requested instruction families are present
// in the SASS and which executed, per-workload correctness (max abs/rel error) and timing
// (kernel and baseline times, speedup), what was not run, and what to do next.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "ptxbench/eval/evaluation.hpp"

namespace ptxbench::agent {

struct FeedbackOptions {
  int turn = 1;
  int max_turns = 8;
  std::optional<double> target_speedup;
  std::size_t compiler_log_lines = 50;  // of a failed compile's log
  std::size_t compiler_log_bytes = 6000;
  std::size_t compiler_line_bytes = 300;  // longer lines are cut
  std::size_t warning_lines = 10;         // of a successful compile's log
};

std::string render_feedback(const eval::Evaluation& evaluation, const FeedbackOptions& options);

// A compiler log cut to at most `max_lines` lines and `max_bytes` bytes, long lines shortened,
// with a note saying how much was left out.
std::string trim_log(std::string_view log, std::size_t max_lines, std::size_t max_bytes,
                     std::size_t max_line_bytes);

}  // namespace ptxbench::agent
