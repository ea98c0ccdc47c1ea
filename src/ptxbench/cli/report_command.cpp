#include <fmt/format.h>

#include "ptxbench/cli/command.hpp"

namespace ptxbench::cli {
// Placeholder until the report command lands: says so and fails.
void add_report_command(CLI::App& app, CommandContext& context) {
  auto* sub = app.add_subcommand("report", "");
  sub->callback([&context] {
    fmt::print(stderr, "ptxbench report: not available in this build yet\n");
    context.exit_code = kExitInternal;
  });
}
}  // namespace ptxbench::cli
