#include <fmt/format.h>

#include "ptxbench/cli/command.hpp"

namespace ptxbench::cli {
// Placeholder until the eval command lands: says so and fails.
void add_eval_command(CLI::App& app, CommandContext& context) {
  auto* sub = app.add_subcommand("eval", "");
  sub->callback([&context] {
    fmt::print(stderr, "ptxbench eval: not available in this build yet\n");
    context.exit_code = kExitInternal;
  });
}
}  // namespace ptxbench::cli
