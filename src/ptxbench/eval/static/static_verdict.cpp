#include "ptxbench/eval/static/static_verdict.hpp"

#include <fmt/format.h>

namespace ptxbench::eval {

std::vector<std::string> requested_absent(const Evaluation& evaluation) {
  std::vector<std::string> absent;
  for (const auto& f : evaluation.families) {
    if (f.requested && f.static_count == 0) absent.push_back(f.family);
  }
  return absent;
}

std::string no_device_code_message(const Evaluation& evaluation) {
  std::vector<std::string> requested;
  for (const auto& f : evaluation.families) {
    if (f.requested) requested.push_back(f.family);
  }
  return fmt::format(
      "no device code: the file compiled to no __global__ kernel, so nothing of it runs on the "
      "GPU{}",
      requested.empty() ? ""
                        : fmt::format(" and the requested families ({}) cannot execute",
                                      fmt::join(requested, ", ")));
}

bool decide_without_gpu(Evaluation& e, const std::string& why) {
  const auto absent = requested_absent(e);
  if (absent.empty()) return false;
  std::vector<std::string> present;
  for (const auto& f : e.families) {
    if (f.static_count > 0) present.push_back(fmt::format("{} x{}", f.family, f.static_count));
  }
  e.verdict = Verdict::kInstructionsAbsent;
  e.message = fmt::format(
      "requested instruction families absent from the machine code: {} (SASS families: {}), so "
      "it cannot pass; correctness not checked: {}",
      fmt::join(absent, ", "),
      present.empty() ? "none" : fmt::format("{}", fmt::join(present, ", ")), why);
  return true;
}

}  // namespace ptxbench::eval
