// The subcommands of `ptxbench fixit`, one file each (cli/fixit_<name>_command.cpp): each adds
// its own flags to the subcommand fixit_command.cpp made for it and sets its callback.
#pragma once
#include <CLI/CLI.hpp>

#include "ptxbench/cli/command.hpp"

namespace ptxbench::cli {

using AddFixitSubcommand = void(CLI::App& sub, CommandContext& context);
AddFixitSubcommand add_fixit_mine, add_fixit_balance, add_fixit_repair, add_fixit_verify,
    add_fixit_explain, add_fixit_export, add_fixit_retrieve, add_fixit_all, add_fixit_demo;

}  // namespace ptxbench::cli
