#include <fmt/format.h>

#include "ptxbench/cli/command.hpp"

namespace ptxbench::cli {
// Placeholder until the demo command lands: says so and fails.
void add_demo_command(CLI::App& app, CommandContext& context) {
  auto* sub = app.add_subcommand("demo", "");
  sub->callback([&context] {
    fmt::print(stderr, "ptxbench demo: not available in this build yet\n");
    context.exit_code = kExitInternal;
  });
}
}  // namespace ptxbench::cli
