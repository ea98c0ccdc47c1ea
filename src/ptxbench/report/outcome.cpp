#include "ptxbench/report/outcome.hpp"

#include "ptxbench/util/check.hpp"

namespace ptxbench::report {

std::size_t outcome_index(const Outcome& outcome) {
  for (std::size_t i = 0; i < kOutcomes.size(); ++i) {
    if (kOutcomes[i] == outcome) return i;
  }
  PTXBENCH_CHECK(false, "verdict missing from the taxonomy");
}

std::string_view outcome_name(const Outcome& outcome) {
  return outcome.verdict ? eval::to_string(*outcome.verdict) : "NO_TURN";
}

std::string_view outcome_meaning(const Outcome& outcome) {
  if (!outcome.verdict) return "no such turn: the trajectory ended earlier";
  switch (*outcome.verdict) {
    case eval::Verdict::kPassed:
      return "correct, every requested family executed substantially";
    case eval::Verdict::kInstructionsNotExecuted:
      return "correct, but a requested family did not execute substantially";
    case eval::Verdict::kIncorrectNumerical:
      return "outputs differ from the reference";
    case eval::Verdict::kInputsModified:
      return "the kernel wrote to its inputs";
    case eval::Verdict::kIncorrectShape:
      return "wrong output shape or dtype, or outputs not written";
    case eval::Verdict::kTimeout:
      return "the kernel ran past its deadline";
    case eval::Verdict::kRuntimeError:
      return "fault, abort, out of memory or bad return";
    case eval::Verdict::kSanitizerError:
      return "compute-sanitizer found memory errors";
    case eval::Verdict::kInstructionsAbsent:
      return "compiled, but the machine code lacks a requested family (or any kernel)";
    case eval::Verdict::kCompileError:
      return "nvcc, ptxas or the linker failed";
    case eval::Verdict::kForbidden:
      return "uses a forbidden library or foreign kernel";
    case eval::Verdict::kNoCode:
      return "the reply held no code block";
    case eval::Verdict::kNotRun:
      return "compiled, but the GPU stages did not run here";
    case eval::Verdict::kInternalError:
      return "ptxbench or its environment failed";
  }
  return "";
}

}  // namespace ptxbench::report
