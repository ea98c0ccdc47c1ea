#include <array>

#include "ptxbench/cli/command.hpp"

namespace ptxbench::cli {
namespace {
constexpr std::array<CommandSpec, 6> kCommands{{
    {"tasks", "List the task suite, or show one task as a model sees it", false, &add_tasks_command},
    {"eval", "Evaluate candidate kernels (.cu or model responses) on a task", true, &add_eval_command},
    {"prompt", "Print the prompt a model gets for a task, arch and context level", false,
     &add_prompt_command},
    {"run", "Run models over tasks x archs x context levels x samples (resumable)", true,
     &add_run_command},
    {"demo", "The built-in default: replay the project's solutions through the full loop", true,
     &add_demo_command},
    {"report", "Tables and plots from one or more runs", false, &add_report_command},
}};
}  // namespace

std::span<const CommandSpec> commands() { return kCommands; }
}  // namespace ptxbench::cli
