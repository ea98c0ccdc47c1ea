// The check on the outputs of the last timed call (docs/gpu-engine.md, "Timing"): they are
// compared with the library's outputs on the same inputs, to catch work that a candidate skips or
// caches once the checked calls are over. Such a kernel changes a large part of an output. A few
// elements in millions outside atol/rtol of the library are the near-ties of an ill-conditioned
// output, which any correct bf16 kernel shows (the backward's dK at S = 4096 on the H200): the
// correctness stage judges those against the high-precision reference.
#pragma once
#include <cstdint>
#include <string>

#include "ptxbench/eval/correctness/output_comparison.hpp"

namespace ptxbench::eval::timing {

// At most one element in this many may fall outside atol/rtol of the library.
inline constexpr std::int64_t kTimedOutputElementsPerMismatch = 10000;

// Whether the timed call's output agrees with the library's: no NaN or Inf, and no more
// mismatches than one in kTimedOutputElementsPerMismatch elements.
bool timed_output_agrees(const worker::ComparisonTotals& totals);

// "O: 12345 of 25165824 elements differ (allowed 2516)", for the stage message.
std::string describe_timed_output(const std::string& name, const worker::ComparisonTotals& totals);

}  // namespace ptxbench::eval::timing
