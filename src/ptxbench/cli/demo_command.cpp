// `ptxbench demo`, the main job on the built-in default: replays the project's solutions and
// broken variants as a model's replies through the whole loop, prints the results table, then
// writes the report of the run.
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <string>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/cli/settings_flags.hpp"
#include "ptxbench/cli/task_suite.hpp"
#include "ptxbench/demo/demo.hpp"
#include "ptxbench/report/report.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/timestamps.hpp"

namespace ptxbench::cli {
namespace {

struct DemoOptions {
  std::string out;
  std::string solutions_dir;
  std::string tasks_dir;
  std::string context = "none";
  std::string context_dir;
  bool all = false;  // replay broken variants even where no GPU stage can run
  SettingsFlags settings;
};

// The demo replays the shipped solutions on the default workloads: it offers every setting but
// the timed workloads and kept artefacts, and compiles two at a time unless told otherwise.
constexpr eval::SettingSet kDemoSettings =
    eval::SettingSet::all().without(eval::Setting::kTimedWorkloads | eval::Setting::kKeepArtifacts);
const eval::EvaluationSettings kDemoDefaults{.parallel = 2};

std::filesystem::path default_out() {
  return std::filesystem::path("runs") / ("demo-" + util::utc_timestamp("%Y%m%d-%H%M%S"));
}

// Replays the plan into the run directory, one line per result on stderr.
util::Expected<agent::RunSummary> replay(const demo::DemoPlan& demo,
                                         const agent::RunDirectory& directory, eval::Engine& engine,
                                         int parallel) {
  std::mutex print_mutex;
  std::size_t done = 0;
  const std::size_t total = demo.entries.size();
  agent::RunObserver observer{.on_turn =
                                  [&print_mutex, &done, total](const agent::TurnEvent& event) {
                                    std::lock_guard lock(print_mutex);
                                    fmt::print(stderr, "  [{}/{}] {}\n", ++done, total,
                                               agent::describe(event));
                                  },
                              .on_message =
                                  [&print_mutex](std::string_view line) {
                                    std::lock_guard lock(print_mutex);
                                    fmt::print(stderr, "  {}\n", line);
                                  }};
  fmt::print("replaying through prompt -> reply -> evaluation -> feedback into {}\n",
             directory.root().string());
  fmt::print(
      "evaluating {} replies, {} at a time: each is compiled by nvcc (tens of seconds on a "
      "small CPU); one line per result\n",
      total, parallel);
  std::fflush(stdout);
  return agent::execute_run(demo.plan, directory, engine.function(), observer);
}

// The results table, the run's report, and the exit code: internal errors first, then results
// that contradict their file's expectation.
int show_results(const demo::DemoPlan& demo, const agent::RunSummary& summary,
                 const agent::RunDirectory& directory) {
  fmt::print("\n{}", demo::render_demo_table(demo.entries, summary.trajectories, demo.set_aside));
  for (const auto& error : summary.internal_errors)
    fmt::print(stderr, "internal error: {}\n", error);

  const int unexpected = demo::count_unexpected(demo.entries, summary.trajectories);
  fmt::print("\nrun directory: {} (trajectories/, responses/, run.json)\n",
             directory.root().string());

  auto report = report::write_report({directory.root()}, report::ReportOptions{});
  if (report) {
    fmt::print("report: {} ({})\n", report->html.string(), report->summary_markdown.string());
  } else {
    fmt::print("report: not written: {}\n", report.error().message);
  }
  if (!summary.internal_errors.empty()) return kExitInternal;
  if (unexpected > 0) {
    fmt::print("{} result(s) contradict their file's expectation\n", unexpected);
    return kExitFailed;
  }
  return kExitOk;
}

int run_demo(const DemoOptions& options) {
  auto level = prompt::parse_context_level(options.context);
  if (!level) {
    fmt::print(stderr, "ptxbench demo: --context {}: expected none, isa, guide or examples\n",
               options.context);
    return kExitUsage;
  }
  auto settings = settings_from_flags(options.settings, kDemoDefaults);
  if (!settings) {
    fmt::print(stderr, "ptxbench demo: {}\n", settings.error().message);
    return kExitUsage;
  }
  auto suite = load_task_suite("demo", options.tasks_dir);
  if (!suite) return kExitUsage;
  eval::apply_correctness_rule(*settings, *suite);
  auto engine = open_command_engine("demo", *settings);
  if (!engine) return kExitUsage;
  std::filesystem::path solutions = options.solutions_dir.empty()
                                        ? agent::default_solutions_dir()
                                        : std::filesystem::path(options.solutions_dir);
  if (std::error_code error; !std::filesystem::is_directory(solutions, error)) {
    fmt::print(stderr, "ptxbench demo: --solutions {}: {}\n", solutions.string(),
               error ? error.message() : std::string("not a directory"));
    return kExitUsage;
  }
  agent::SolutionScan scan = agent::scan_solutions(solutions);
  demo::DemoPlan demo =
      demo::plan_demo(*suite, scan, *level,
                      options.context_dir.empty() ? prompt::default_context_dir()
                                                  : std::filesystem::path(options.context_dir),
                      eval::parallel_compiles(*settings));

  fmt::print(
      "ptxbench demo: {} solution file(s) with a `// ptxbench:` header among {} .cu file(s) "
      "under {}\n",
      demo.entries.size(), scan.files_seen, solutions.string());
  for (const auto& note : demo.notes) fmt::print("  note: {}\n", note);
  if (demo.entries.empty()) {
    fmt::print(
        "nothing to replay: add solutions under {} (first line: // ptxbench: task=<task> "
        "arch=<arch> expect=<VERDICT>)\n",
        solutions.string());
    return kExitFailed;
  }

  std::filesystem::path out =
      options.out.empty() ? default_out() : std::filesystem::path(options.out);
  auto directory = agent::RunDirectory::open(out);
  if (!directory) {
    fmt::print(stderr, "ptxbench demo: {}\n", directory.error().message);
    return kExitUsage;
  }
  if (!options.all) {
    std::string why;
    auto gpu_runs = [&](arch::Arch arch) { return engine->gpu_stages_available(arch, why); };
    if (const auto n = demo::set_aside_gpu_only(demo, gpu_runs); n > 0) {
      fmt::print(
          "  note: {} non-expert file(s) not replayed: {}: GPU stages not run (--all "
          "replays them)\n",
          n, why);
    }
  }
  auto summary = replay(demo, *directory, *engine, eval::parallel_compiles(*settings));
  if (!summary) {
    fmt::print(stderr, "ptxbench demo: {}\n", summary.error().message);
    return kExitUsage;
  }
  return show_results(demo, *summary, *directory);
}

}  // namespace

void add_demo_command(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DemoOptions>();
  auto* sub = app.add_subcommand("demo", "");
  sub->add_option("--out", options->out, "Run directory (default: runs/demo-<UTC time>)");
  sub->add_option("--solutions", options->solutions_dir, "Solutions directory (default: built-in)");
  sub->add_option("--tasks-dir", options->tasks_dir, "Task suite (default: built-in)");
  sub->add_option("--context", options->context, "Context level of the prompts")
      ->capture_default_str();
  sub->add_option("--context-dir", options->context_dir, "Context documents (default: built-in)");
  sub->add_flag("--all", options->all,
                "Replay the broken variants even where no GPU stage can run (they only show "
                "NOT_RUN there)");
  add_settings_flags(*sub, options->settings, kDemoSettings, kDemoDefaults);
  sub->callback([options, &context] { context.exit_code = run_demo(*options); });
}

}  // namespace ptxbench::cli
