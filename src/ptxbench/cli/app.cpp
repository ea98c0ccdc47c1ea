#include "ptxbench/cli/app.hpp"

#include <fmt/format.h>

#include <exception>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/config.hpp"

namespace ptxbench::cli {
int run_app(int argc, char** argv) {
  CLI::App app{"ptxbench: benchmark LLM-written architecture-specific GPU kernels"};
  app.set_version_flag("--version", std::string(config::kVersion));
  app.require_subcommand(1);
  CommandContext context;
  for (const auto& command : commands()) {
    command.add(app, context);
    app.get_subcommand(std::string(command.name))->description(std::string(command.summary));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    fmt::print(stderr, "ptxbench: internal error: {}\n", e.what());
    return kExitInternal;
  }
  return context.exit_code;
}
}  // namespace ptxbench::cli
