// Which workloads of a task the timing stage times (`ptxbench eval --time-workloads SPEC`): the
// headline alone (the default), every workload, or the named ones the task has. The headline is
// always timed: the verdict and the headline speedup come from it, whatever else is timed.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval {

struct TimedWorkloads {
  bool all = false;
  std::vector<std::string> names;  // workload names; a task lacking one skips it

  bool headline_only() const { return !all && names.empty(); }
  // Indices into task.workloads, in task order, the headline among them.
  std::vector<std::size_t> select(const task::Task& task) const;
  // The spec back: "headline", "all" or the comma list.
  std::string spec() const;
};

// "headline", "all", or a comma list of workload names ("M8192,M8828"; "all" or "headline" in
// the list mean what they mean alone). An empty spec or list is an error.
util::Expected<TimedWorkloads> parse_timed_workloads(std::string_view spec);

// The geometric mean of the speedups of the workloads that were timed (those with a positive
// speedup); nullopt when none was.
std::optional<double> geometric_mean_speedup(const std::vector<WorkloadResult>& workloads);

// How many of `workloads` were timed.
std::size_t timed_count(const std::vector<WorkloadResult>& workloads);

}  // namespace ptxbench::eval
