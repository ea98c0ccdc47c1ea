// Entry point of the CLI: parses arguments, dispatches to the subcommand table, maps errors to
// exit codes (0 ok, 1 the evaluated thing failed, 2 usage or input error, 3 internal error).
#pragma once

namespace ptxbench::cli {
int run_app(int argc, char** argv);
}  // namespace ptxbench::cli
