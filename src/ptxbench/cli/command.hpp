// The subcommand table: one file per subcommand (cli/<name>_command.cpp) defines its `add`
// function; commands.cpp lists them. Exit codes: 0 ok, 1 the evaluated thing failed,
// 2 usage or input error, 3 internal error.
#pragma once
#include <CLI/CLI.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench::cli {

enum ExitCode : int { kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitInternal = 3 };

struct CommandContext {
  int exit_code = kExitOk;  // set by the command's callback
};

struct CommandSpec {
  std::string_view name;
  std::string_view summary;
  bool needs_gpu;  // for the full result; every command also runs without one
  void (*add)(CLI::App& app, CommandContext& context);
  std::string (*help_footer)() = nullptr;  // more reference text for `<name> --help`
};

std::span<const CommandSpec> commands();

// Up to `limit` of `names` close to `name` (small edit distance, or `name` is a prefix of them),
// closest first.
std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& names,
                                       std::size_t limit = 3);
// " (did you mean X?)", " (did you mean X or Y?)", or "" when nothing is close.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& names);

void add_tasks_command(CLI::App& app, CommandContext& context);
void add_eval_command(CLI::App& app, CommandContext& context);
void add_prompt_command(CLI::App& app, CommandContext& context);
void add_run_command(CLI::App& app, CommandContext& context);
void add_demo_command(CLI::App& app, CommandContext& context);
void add_report_command(CLI::App& app, CommandContext& context);
void add_serve_command(CLI::App& app, CommandContext& context);
void add_export_traces_command(CLI::App& app, CommandContext& context);
void add_export_tasks_command(CLI::App& app, CommandContext& context);
void add_merge_command(CLI::App& app, CommandContext& context);
void add_fixit_command(CLI::App& app, CommandContext& context);
void add_study_command(CLI::App& app, CommandContext& context);
void add_settings_command(CLI::App& app, CommandContext& context);

}  // namespace ptxbench::cli
