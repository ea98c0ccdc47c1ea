// The "as accurate as the library" rule (docs/correctness.md): an output passes when, against
// the high-precision reference, the candidate's error is within k times the library's own error
// plus the output's resolution, in each aggregate (max abs, mean abs, relative Frobenius), and
// it loses no more element duels (accuracy_element.hpp) than k times the library's count or, when
// both counts are small, than chance explains for two equally accurate implementations.
// Pure arithmetic on streamed totals: no GPU.
#pragma once
#include <cstdint>
#include <string>

#include "ptxbench/eval/accuracy_figures.hpp"
#include "ptxbench/eval/correctness/accuracy_totals.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::eval::correctness {

// k. FlashAttention's tests allow twice the error of a reference implementation in the same
// precision (plus a floor for the output's rounding); the same factor serves here.
inline constexpr double kLibraryErrorFactor = 2.0;

// The significance level of the duel count: the candidate's lost duels fail it only when an
// implementation as accurate as the library would lose that many (of the duels either side lost)
// with a chance below this. One in a thousand: 0 lost by the library allows 9, 1 allows 12.
inline constexpr double kDuelChanceLevel = 1e-3;

// How many element duels the candidate may lose when the library lost `library_duels_lost`:
// the larger of k·L and the most that a one-sided sign test at kDuelChanceLevel explains.
std::int64_t duels_lost_allowance(std::int64_t library_duels_lost);

// The relative error below which an output of this dtype cannot be judged: the unit roundoff
// of a rounded output (bfloat16 2^-8, float16 2^-11, fp8 e4m3 2^-4, e5m2 2^-3), and 2^-16 for
// float32 outputs, which are fp32 reductions of bfloat16 data whose own rounding (and the
// reference's, itself fp32) is far above 2^-24. Integers: 0.
double output_resolution(task::DType dtype);

// The figures are part of the record (eval/accuracy_figures.hpp), which sits above this folder.
using eval::AccuracyFigures;
using eval::AggregateFigure;

AccuracyFigures judge_accuracy(const AccuracyTotals& totals, task::DType dtype);

// Why the figures fail, e.g. "max abs error 0.5 > budget 0.25 (library 0.12)"; "" when passed.
std::string accuracy_failure(const AccuracyFigures& figures);

// One line with both errors of each aggregate, for the feedback and the summary.
std::string accuracy_summary(const AccuracyFigures& figures);

}  // namespace ptxbench::eval::correctness
