#include "ptxbench/cli/app.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/config.hpp"

namespace ptxbench::cli {
namespace {

// CLI11 would call an unknown command an unexpected argument; name it and suggest the closest.
bool reject_unknown_command(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return false;
  std::vector<std::string> names;
  for (const auto& command : commands()) names.emplace_back(command.name);
  const std::string given = argv[1];
  if (std::find(names.begin(), names.end(), given) != names.end()) return false;
  fmt::print(stderr, "ptxbench: unknown command '{}'{}\nCommands: {}\n", given,
             did_you_mean(given, names), fmt::join(names, ", "));
  return true;
}

}  // namespace

int run_app(int argc, char** argv) {
  CLI::App app{"ptxbench: benchmark LLM-written architecture-specific GPU kernels"};
  app.set_version_flag("--version", std::string(config::kVersion));
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 ok, 1 the evaluated thing failed, 2 usage or input error, 3 internal error.\n"
      "`ptxbench run --help` documents the model providers: the replay layouts and the command "
      "protocol.");
  CommandContext context;
  for (const auto& command : commands()) {
    command.add(app, context);
    auto* sub = app.get_subcommand(std::string(command.name));
    sub->description(std::string(command.summary));
    if (command.help_footer != nullptr) sub->footer(command.help_footer());
  }
  if (reject_unknown_command(argc, argv)) return kExitUsage;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help, the version, or what was wrong
    return code == 0 ? kExitOk : kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ptxbench: internal error: {}\n", e.what());
    return kExitInternal;
  }
  return context.exit_code;
}

}  // namespace ptxbench::cli
