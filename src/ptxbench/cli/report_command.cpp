// `ptxbench report RUN_DIR... [--out DIR] [--turns 1,4,8] [--compare A:B] [--published FILE...]
// [--prices FILE] [--fixit DIR...]`: tables and plots of one or more runs (summary.md,
// report.html, leaderboard.html, plots/*.svg, tables/*.{csv,json}) and the trajectory viewer
// (view/index.html). docs/reports.md defines every metric.
#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/report/report.hpp"

namespace ptxbench::cli {
namespace {

struct ReportFlags {
  std::vector<std::string> runs;  // DIR or LABEL=DIR
  std::string out;
  std::vector<int> turns;  // empty: 1, 4, 8 ... up to the runs' turn budget
  std::vector<std::string> compare;
  std::vector<std::string> published;
  std::string prices;
  std::string tasks_dir;
  std::vector<std::string> fixit;
  bool no_viewer = false;
  std::uint64_t seed = report::ReportOptions{}.bootstrap_seed;
  int resamples = report::ReportOptions{}.bootstrap_resamples;
  bool quiet = false;
};

// LABEL=DIR names a run; a plain path (even one holding '=') is its own label.
void split_run_argument(const std::string& argument, std::vector<std::filesystem::path>& dirs,
                        std::vector<std::string>& labels) {
  const auto eq = argument.find('=');
  std::error_code error;
  if (eq != std::string::npos && eq > 0 && !std::filesystem::exists(argument, error)) {
    labels.push_back(argument.substr(0, eq));
    dirs.emplace_back(argument.substr(eq + 1));
  } else {
    labels.emplace_back();
    dirs.emplace_back(argument);
  }
}

int run_report(const ReportFlags& flags) {
  std::vector<std::filesystem::path> dirs;
  report::ReportOptions options;
  for (const auto& argument : flags.runs) split_run_argument(argument, dirs, options.run_labels);
  options.out_dir = flags.out;
  options.turn_limits = flags.turns;
  options.comparisons = flags.compare;
  for (const auto& file : flags.published) options.published_files.emplace_back(file);
  options.prices_file = flags.prices;
  options.tasks_dir = flags.tasks_dir;
  for (const auto& dir : flags.fixit) options.fixit_dirs.emplace_back(dir);
  options.viewer = !flags.no_viewer;
  options.bootstrap_seed = flags.seed;
  options.bootstrap_resamples = flags.resamples;
  if (!flags.quiet) {
    options.progress = [](std::string_view line) { fmt::print(stderr, "report: {}\n", line); };
  }
  auto paths = report::write_report(dirs, options);
  if (!paths) {
    fmt::print(stderr, "ptxbench report: {}\n", paths.error().message);
    return kExitUsage;
  }
  if (!paths->warnings.empty() && !flags.quiet) {
    fmt::print(stderr, "report: {} warning(s); the first: {}\n", paths->warnings.size(),
               paths->warnings.front());
  }
  fmt::print("{} trajectories\nreport:  {}\nsummary: {}\ntables:  {}\nplots:   {}\n",
             paths->trajectories, paths->html.string(), paths->summary_markdown.string(),
             (paths->out_dir / "tables").string(), (paths->out_dir / "plots").string());
  fmt::print("leaderboard: {}\n", paths->leaderboard.string());
  if (!paths->viewer_index.empty()) {
    fmt::print("viewer:  {} ({} pages)\n", paths->viewer_index.string(), paths->viewer_items);
  }
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, CommandContext& context) {
  auto flags = std::make_shared<ReportFlags>();
  auto* sub = app.add_subcommand("report", "");
  sub->add_option("runs", flags->runs, "run directories (LABEL=DIR names a run)")
      ->required()
      ->expected(1, -1);
  sub->add_option("--out", flags->out,
                  "output directory (default: RUN_DIR/report of the first run)");
  sub->add_option(
         "--turns", flags->turns,
         "turn limits t of correct@t, verified@t, ... (default: 1, 4, 8, 16 ... up to the runs' "
         "max_turns)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1000));
  sub->add_option("--compare", flags->compare,
                  "A:B or run=A:B, model=A:B, context=A:B: B beside A with the difference "
                  "(repeatable)");
  sub->add_option("--published", flags->published,
                  "the original research's aggregate CSVs, shown beside ours")
      ->check(CLI::ExistingFile);
  sub->add_option("--prices", flags->prices, "token prices per model (JSON), for cost columns")
      ->check(CLI::ExistingFile);
  sub->add_option("--tasks", flags->tasks_dir,
                  "task suite for trajectories that do not record their split");
  sub->add_option("--fixit", flags->fixit,
                  "a Fixit folder whose rows the viewer shows beside the trajectories "
                  "(repeatable)")
      ->check(CLI::ExistingDirectory);
  sub->add_flag("--no-viewer", flags->no_viewer,
                "tables and plots only: no view/ pages (a page per trajectory)");
  sub->add_option("--seed", flags->seed, "bootstrap seed");
  sub->add_option("--bootstrap", flags->resamples, "bootstrap resamples (0: no speedup intervals)")
      ->check(CLI::Range(0, 1000000));
  sub->add_flag("--quiet", flags->quiet, "no progress lines");
  sub->callback([flags, &context] { context.exit_code = run_report(*flags); });
}

}  // namespace ptxbench::cli
