// What the correctness stage does with a task's unseen workloads (task/unseen_workloads.hpp):
// they are judged exactly like the shown ones, after them, and recorded apart in the record's
// `generalisation` part. Whether a failure there fails the verdict is the run's policy; either
// way, feedback says that a hidden size failed and never which one.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/eval/evaluation.hpp"

namespace ptxbench::eval::correctness {

enum class UnseenPolicy {
  kRequire,  // an unseen workload that fails fails the verdict (the default)
  kReport,   // recorded in `generalisation` only: measures the seen/unseen gap
  kOff,      // unseen workloads are not run
};
std::string_view to_string(UnseenPolicy policy);  // "require", "report", "off"
std::optional<UnseenPolicy> parse_unseen_policy(std::string_view name);

// The record part from the judged workloads (shown ones and those flagged unseen).
Generalisation summarise(const std::vector<WorkloadResult>& workloads, UnseenPolicy policy);

// The first unseen workload that failed, if any.
const WorkloadResult* first_unseen_failure(const std::vector<WorkloadResult>& workloads);

// The verdict's message when an unseen workload fails it: what went wrong (its verdict) and how
// many hidden workloads failed, without a size, a shape or the judge's own message.
std::string hidden_failure_message(const Generalisation& generalisation,
                                   const WorkloadResult& first_failed);

}  // namespace ptxbench::eval::correctness
