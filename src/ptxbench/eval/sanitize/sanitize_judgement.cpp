#include "ptxbench/eval/sanitize/sanitize_judgement.hpp"

#include <fmt/format.h>

#include "ptxbench/compile/compiler.hpp"

namespace ptxbench::eval {

SanitizeJudgement judge_sanitize(const SanitizerReport& report,
                                 const std::vector<std::string>& own_kernels,
                                 std::string_view harness_kernel_substring) {
  if (report.found_errors()) {
    auto foreign = library_kernels_in_errors(report, own_kernels, compile::kSourceFileName);
    auto charged = kernels_not_from_harness(foreign, harness_kernel_substring);
    if (!charged.empty()) {
      return {
          .status = StageStatus::kFailed,
          .verdict = Verdict::kForbidden,
          .message = fmt::format("a kernel not built from the candidate ran inside run(): {}\n{}",
                                 fmt::join(charged, ", "), report.message())};
    }
    if (foreign.empty()) {
      return {.status = StageStatus::kFailed,
              .verdict = Verdict::kSanitizerError,
              .message = report.message()};
    }
    return {.status = StageStatus::kNotChecked,
            .message = fmt::format(
                "not checked: the errors lie only in the harness's own kernels that derive the "
                "inputs before run() ({}), not charged to the candidate\n{}",
                fmt::join(foreign, ", "), report.message())};
  }
  if (auto unfinished = report.not_checked(); !unfinished.empty()) {
    return {.status = StageStatus::kNotChecked,
            .message = fmt::format("not checked: {} did not finish\n{}",
                                   fmt::join(unfinished, ", "), report.message())};
  }
  return {.status = StageStatus::kPassed, .message = report.message()};
}

}  // namespace ptxbench::eval
