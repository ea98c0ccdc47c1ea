// `ptxbench settings [--markdown]`: the engine's settings, one line each, from the setting table
// (eval/setting_table.hpp): the run.yaml / fixit.yaml / request field, the flag, the default, the
// values allowed and what it does. `--markdown` prints the table docs/running.md carries.
#include <fmt/format.h>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/eval/setting_table.hpp"

namespace ptxbench::cli {
namespace {

void print_plain() {
  const eval::EvaluationSettings defaults;
  for (const auto& row : eval::setting_table()) {
    fmt::print("{:<20} {:<22} default {}\n    {}\n", row.field, row.name(),
               eval::setting_value_text(row, row.get(defaults)), row.help);
  }
}

}  // namespace

void add_settings_command(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("settings", "");
  auto markdown = std::make_shared<bool>(false);
  command->add_flag("--markdown", *markdown, "the table of docs/running.md");
  command->callback([markdown, &context] {
    if (*markdown) {
      fmt::print("{}", eval::settings_markdown());
    } else {
      print_plain();
    }
    context.exit_code = kExitOk;
  });
}

}  // namespace ptxbench::cli
