#include "ptxbench/cli/task_suite.hpp"

#include <fmt/format.h>

#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::cli {

std::optional<std::vector<task::Task>> load_task_suite(std::string_view command,
                                                       const std::filesystem::path& tasks_dir) {
  auto suite = task::load_suite(tasks_dir.empty() ? task::default_tasks_dir() : tasks_dir);
  if (!suite) {
    fmt::print(stderr, "ptxbench {}: {}\n", command, suite.error().message);
    return std::nullopt;
  }
  return std::move(*suite);
}

}  // namespace ptxbench::cli
