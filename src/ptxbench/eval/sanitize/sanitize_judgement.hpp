// Stage 5's verdict from the tools' report (sanitizer.hpp): what a sanitizer finding means for
// the candidate. Pure: no processes, no GPU.
//
// Errors in the candidate's own code fail it (SANITIZER_ERROR). Errors located only in a kernel
// the candidate did not build say first of all that such a kernel ran inside run(): library use,
// FORBIDDEN, caught here before the timing trace; the harness's own library kernels (which
// derive inputs before run()) are not charged, and leave the stage "not checked". A tool that
// did not finish leaves it "not checked", never "passed".
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/sanitize/sanitizer.hpp"

namespace ptxbench::eval {

struct SanitizeJudgement {
  StageStatus status = StageStatus::kPassed;  // passed, failed or not checked
  std::optional<Verdict> verdict;             // set when failed
  std::string message;
};

// `own_kernels`: the mangled names of the candidate's cubin; `harness_kernel_substring`: what
// names the kernels the harness itself launched in the tool's process
// (harness_kernel_substring()).
SanitizeJudgement judge_sanitize(const SanitizerReport& report,
                                 const std::vector<std::string>& own_kernels,
                                 std::string_view harness_kernel_substring);

}  // namespace ptxbench::eval
