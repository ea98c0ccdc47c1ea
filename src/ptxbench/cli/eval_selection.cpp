#include "ptxbench/cli/eval_selection.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::cli {
namespace {

std::vector<std::string> split_commas(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& value : values) {
    std::size_t start = 0;
    while (start <= value.size()) {
      auto comma = value.find(',', start);
      if (comma == std::string::npos) comma = value.size();
      std::string part = value.substr(start, comma - start);
      part.erase(0, part.find_first_not_of(" \t"));
      part.erase(part.find_last_not_of(" \t") + 1);
      if (!part.empty()) out.push_back(std::move(part));
      start = comma + 1;
    }
  }
  return out;
}

bool is_glob(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

}  // namespace

util::Expected<std::vector<const task::Task*>> select_tasks(
    const std::vector<task::Task>& suite, const std::vector<std::string>& patterns) {
  std::vector<std::string> names;
  for (const auto& t : suite) names.push_back(t.name);
  std::vector<const task::Task*> selected;
  auto add = [&selected](const task::Task* task) {
    if (std::find(selected.begin(), selected.end(), task) == selected.end())
      selected.push_back(task);
  };
  const auto parts = split_commas(patterns);
  if (parts.empty())
    return util::make_error("--task: expected a task name, a glob or a comma list");
  for (const auto& pattern : parts) {
    if (!is_glob(pattern)) {
      const task::Task* task = task::find_task(suite, pattern);
      if (task == nullptr) {
        return util::make_error(fmt::format("no task named '{}'{} (see `ptxbench tasks`)", pattern,
                                            did_you_mean(pattern, names)));
      }
      add(task);
      continue;
    }
    bool matched = false;
    for (const auto& task : suite) {
      if (::fnmatch(pattern.c_str(), task.name.c_str(), 0) != 0) continue;
      matched = true;
      add(&task);
    }
    if (!matched) {
      return util::make_error(fmt::format("no task matches '{}' (see `ptxbench tasks`)", pattern));
    }
  }
  return selected;
}

std::optional<std::string> unknown_timed_workload(const eval::TimedWorkloads& timed,
                                                  const std::vector<const task::Task*>& tasks) {
  std::vector<std::string> workloads;
  for (const auto* task : tasks) {
    for (const auto& w : task->workloads) {
      if (std::find(workloads.begin(), workloads.end(), w.name) == workloads.end())
        workloads.push_back(w.name);
    }
  }
  for (const auto& name : timed.names) {
    if (std::find(workloads.begin(), workloads.end(), name) != workloads.end()) continue;
    return fmt::format("--time-workloads: no selected task has a workload named '{}'{}", name,
                       did_you_mean(name, workloads));
  }
  return std::nullopt;
}

}  // namespace ptxbench::cli
