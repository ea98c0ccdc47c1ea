// `ptxbench fixit mine|balance|repair|verify|explain|export|retrieve|all|demo` over a Fixit
// folder (docs/fixit.md): from a model's failing turns to verified, explained training rows.
// The table of subcommands; each is its own file (cli/fixit_subcommands.hpp).
#include <array>
#include <string>
#include <string_view>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/cli/fixit_subcommands.hpp"

namespace ptxbench::cli {
namespace {

struct FixitSubcommand {
  std::string_view name;
  std::string_view summary;
  AddFixitSubcommand* add;
};

constexpr std::array<FixitSubcommand, 9> kFixitSubcommands{{
    {"mine", "Collect the failing turns of runs", &add_fixit_mine},
    {"balance", "Select rows to repair by a recipe", &add_fixit_balance},
    {"repair", "A teacher repairs the selected rows (resumable)", &add_fixit_repair},
    {"verify", "Keep repairs judged PASSED on a GPU", &add_fixit_verify},
    {"explain", "A teacher explains each repair in the first person", &add_fixit_explain},
    {"export", "Write SFT rows (JSON Lines) and the dataset card", &add_fixit_export},
    {"retrieve", "The verified repairs most similar to a query", &add_fixit_retrieve},
    {"all", "Every stage, from a config file", &add_fixit_all},
    {"demo", "The built-in default: the demo run's failures to rows", &add_fixit_demo},
}};

}  // namespace

void add_fixit_command(CLI::App& app, CommandContext& context) {
  auto* fixit = app.add_subcommand("fixit", "");
  fixit->require_subcommand(1);
  // CLI11 runs the callback of the one subcommand given.
  for (const auto& sub : kFixitSubcommands)
    sub.add(*fixit->add_subcommand(std::string(sub.name), std::string(sub.summary)), context);
}

}  // namespace ptxbench::cli
