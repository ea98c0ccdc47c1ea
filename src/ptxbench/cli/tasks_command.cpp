#include <fmt/format.h>

#include "ptxbench/cli/command.hpp"

namespace ptxbench::cli {
// Placeholder until the tasks command lands: says so and fails.
void add_tasks_command(CLI::App& app, CommandContext& context) {
  auto* sub = app.add_subcommand("tasks", "");
  sub->callback([&context] {
    fmt::print(stderr, "ptxbench tasks: not available in this build yet\n");
    context.exit_code = kExitInternal;
  });
}
}  // namespace ptxbench::cli
