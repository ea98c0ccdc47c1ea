// Loading and validating task files. Every problem is reported as "<file>: <field>: <problem>".
#pragma once
#include <filesystem>
#include <string_view>
#include <vector>

#include "ptxbench/task/task.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::task {

util::Expected<Task> parse_task(std::string_view json_text, const std::filesystem::path& source);
util::Expected<Task> load_task_file(const std::filesystem::path& path);
// Every tasks/<family>/*.json under dir; duplicate names are an error.
util::Expected<std::vector<Task>> load_suite(const std::filesystem::path& dir);
// The built-in suite: $PTXBENCH_HOME/tasks, else the source tree's tasks/.
std::filesystem::path default_tasks_dir();
const Task* find_task(const std::vector<Task>& tasks, std::string_view name);

}  // namespace ptxbench::task
