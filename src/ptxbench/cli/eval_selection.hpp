// What `ptxbench eval` evaluates besides its files: the tasks (`--task`, repeated, comma lists
// or globs such as gemm_*) and the workloads the timing stage times (`--time-workloads`).
// Errors are messages for the user (usage errors), with "did you mean" where a name is close.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/eval/timing/timed_workloads.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::cli {

// Each pattern is a task name, a glob (fnmatch: *, ?, [..]) or a comma list of those. The tasks
// in the order the patterns name them (a glob's matches in suite order), each once. A name that
// is no task, or a glob that matches none, is an error.
util::Expected<std::vector<const task::Task*>> select_tasks(
    const std::vector<task::Task>& suite, const std::vector<std::string>& patterns);

// The timed workloads (parsed once, with the settings) checked against the selected tasks: every
// name must be a workload of at least one of them; the problem, or nullopt.
std::optional<std::string> unknown_timed_workload(const eval::TimedWorkloads& timed,
                                                  const std::vector<const task::Task*>& tasks);

}  // namespace ptxbench::cli
