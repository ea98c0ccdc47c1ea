#include <fmt/format.h>

#include "ptxbench/cli/command.hpp"

namespace ptxbench::cli {
// Placeholder until the run command lands: says so and fails.
void add_run_command(CLI::App& app, CommandContext& context) {
  auto* sub = app.add_subcommand("run", "");
  sub->callback([&context] {
    fmt::print(stderr, "ptxbench run: not available in this build yet\n");
    context.exit_code = kExitInternal;
  });
}
}  // namespace ptxbench::cli
