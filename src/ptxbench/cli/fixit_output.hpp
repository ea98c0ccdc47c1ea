// What `ptxbench fixit ...` prints: each stage's outcome (stdout), its progress lines and
// errors (stderr), and the exit code that goes with them.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "ptxbench/fixit/chain.hpp"
#include "ptxbench/fixit/stages.hpp"

namespace ptxbench::cli {

// The environment with the CLI's output: progress lines on stderr ("  line", one at a time from
// any thread) and an engine opener that prints the engine's warning.
fixit::Environment with_fixit_output(fixit::Environment env);

void print_outcome(const fixit::StageOutcome& outcome);

// Prints a stage's outcome or "ptxbench fixit STAGE: problem"; the exit code.
template <class Outcome>
int finish_stage(std::string_view stage, const util::Expected<Outcome>& outcome);

// Prints a chain's failure (its outcomes were printed as they came); the exit code.
int finish_chain(const std::optional<fixit::StageFailure>& failure);

}  // namespace ptxbench::cli
