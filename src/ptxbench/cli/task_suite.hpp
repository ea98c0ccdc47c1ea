// The task suite a command reads: its --tasks-dir, or the built-in suite when none is given.
#pragma once
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "ptxbench/task/task.hpp"

namespace ptxbench::cli {

// nullopt once "ptxbench COMMAND: problem" is on stderr (the command exits kExitUsage).
std::optional<std::vector<task::Task>> load_task_suite(std::string_view command,
                                                       const std::filesystem::path& tasks_dir);

}  // namespace ptxbench::cli
