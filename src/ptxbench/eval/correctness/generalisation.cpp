#include "ptxbench/eval/correctness/generalisation.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace ptxbench::eval::correctness {
namespace {

constexpr std::array<std::pair<UnseenPolicy, std::string_view>, 3> kPolicies{{
    {UnseenPolicy::kRequire, "require"},
    {UnseenPolicy::kReport, "report"},
    {UnseenPolicy::kOff, "off"},
}};

std::string_view what_failed(Verdict verdict) {
  switch (verdict) {
    case Verdict::kIncorrectNumerical:
      return "its outputs were wrong";
    case Verdict::kIncorrectShape:
      return "it left outputs unwritten or wrote the wrong shape";
    case Verdict::kInputsModified:
      return "it modified its inputs";
    case Verdict::kRuntimeError:
      return "run() failed or a kernel faulted";
    case Verdict::kTimeout:
      return "it did not finish in time";
    default:
      return "it failed";
  }
}

}  // namespace

std::string_view to_string(UnseenPolicy policy) {
  for (const auto& [value, name] : kPolicies) {
    if (value == policy) return name;
  }
  return "require";
}

std::optional<UnseenPolicy> parse_unseen_policy(std::string_view name) {
  for (const auto& [value, known] : kPolicies) {
    if (known == name) return value;
  }
  return std::nullopt;
}

Generalisation summarise(const std::vector<WorkloadResult>& workloads, UnseenPolicy policy) {
  Generalisation g{.policy = std::string(to_string(policy))};
  for (const auto& w : workloads) {
    const bool passed = w.status == Verdict::kPassed;
    if (w.unseen) {
      ++g.unseen_total;
      g.unseen_passed += passed ? 1 : 0;
      if (!passed) g.failed_unseen.push_back(w.workload);
    } else {
      ++g.shown_total;
      g.shown_passed += passed ? 1 : 0;
    }
  }
  return g;
}

const WorkloadResult* first_unseen_failure(const std::vector<WorkloadResult>& workloads) {
  for (const auto& w : workloads) {
    if (w.unseen && w.status != Verdict::kPassed) return &w;
  }
  return nullptr;
}

std::string hidden_failure_message(const Generalisation& generalisation,
                                   const WorkloadResult& first_failed) {
  return fmt::format(
      "correct on the {} workloads the task lists, but not on {} of {} hidden workloads (sizes "
      "the task does not list, checked the same way): on one of them {}. Handle every size, not "
      "only the listed ones",
      generalisation.shown_total, generalisation.failed_unseen.size(), generalisation.unseen_total,
      what_failed(first_failed.status));
}

}  // namespace ptxbench::eval::correctness
