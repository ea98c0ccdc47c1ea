// `ptxbench fixit mine RUN...`: the failing turns of runs as the rows to repair.
#include "ptxbench/cli/fixit_flags.hpp"
#include "ptxbench/cli/fixit_output.hpp"
#include "ptxbench/cli/fixit_subcommands.hpp"

namespace ptxbench::cli {
namespace {

struct MineFlags {
  FixitFolderFlags where;
  std::vector<std::string> runs, verdicts, contexts, tasks, models;
  std::vector<int> turns;
  bool include_not_run = false;
};

// Each of `names` parsed into `into`; false after printing the first unknown one.
template <class Parse, class Set>
bool parse_names(const std::vector<std::string>& names, Parse parse, std::string_view flag,
                 std::string_view what, Set& into) {
  for (const auto& name : names) {
    auto value = parse(name);
    if (!value) {
      fmt::print(stderr, "ptxbench fixit mine: {}: unknown {} {}\n", flag, what, name);
      return false;
    }
    into.insert(*value);
  }
  return true;
}

int run_mine(const MineFlags& flags) {
  fixit::MineFilters filters{
      .tasks = flags.tasks, .models = flags.models, .include_not_run = flags.include_not_run};
  if (!parse_names(flags.verdicts, eval::parse_verdict, "--verdicts", "verdict",
                   filters.verdicts) ||
      !parse_names(flags.contexts, prompt::parse_context_level, "--contexts", "context level",
                   filters.contexts))
    return kExitUsage;
  filters.turns.insert(flags.turns.begin(), flags.turns.end());
  std::vector<std::filesystem::path> runs(flags.runs.begin(), flags.runs.end());
  return with_folder(flags.where, {},
                     [&](const fixit::FixitFolder& folder, const fixit::Environment& env) {
                       return finish_stage("mine", fixit::fixit_mine(folder, env, runs, filters));
                     });
}

}  // namespace

void add_fixit_mine(CLI::App& mine, CommandContext& context) {
  auto flags = std::make_shared<MineFlags>();
  add_fixit_folder_flags(mine, flags->where);
  mine.add_option("runs", flags->runs, "Run directories")->required();
  mine.add_option("--verdicts", flags->verdicts, "Only these verdict kinds")->delimiter(',');
  mine.add_option("--turns", flags->turns, "Only these turns")->delimiter(',');
  mine.add_option("--contexts", flags->contexts, "Only these context levels")->delimiter(',');
  mine.add_option("--tasks", flags->tasks, "Only these tasks (names or globs)")->delimiter(',');
  mine.add_option("--models", flags->models, "Only these models (names or globs)")->delimiter(',');
  mine.add_flag("--include-not-run", flags->include_not_run,
                "Also replayed controls whose GPU stages did not run here (their declared "
                "verdict)");
  on_fixit_run(mine, context, flags, &run_mine);
}

}  // namespace ptxbench::cli
