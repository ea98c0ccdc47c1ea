#include <fmt/format.h>

#include "ptxbench/cli/command.hpp"

namespace ptxbench::cli {
// Placeholder until the prompt command lands: says so and fails.
void add_prompt_command(CLI::App& app, CommandContext& context) {
  auto* sub = app.add_subcommand("prompt", "");
  sub->callback([&context] {
    fmt::print(stderr, "ptxbench prompt: not available in this build yet\n");
    context.exit_code = kExitInternal;
  });
}
}  // namespace ptxbench::cli
