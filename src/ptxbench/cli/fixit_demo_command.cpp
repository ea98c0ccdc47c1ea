// `ptxbench fixit demo`, the built-in default: the demo run's failures to rows, in seven
// numbered steps (fixit/demo.hpp runs them; this file prints them).
#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/cli/fixit_flags.hpp"
#include "ptxbench/cli/fixit_output.hpp"
#include "ptxbench/cli/fixit_subcommands.hpp"
#include "ptxbench/fixit/demo.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/timestamps.hpp"

namespace ptxbench::cli {
namespace {

struct DemoFlags {
  std::string out, solutions_dir, tasks_dir;
  SettingsFlags settings;
  std::string length = "medium";
};

// The demo's headers: the step of seven each stage is.
void print_demo_step(std::string_view stage, const fixit::LengthBin& length) {
  if (stage == "mine") fmt::print("\nfixit demo: 2/7 mine\n");
  if (stage == "balance") fmt::print("fixit demo: 3/7 balance (volume: every row)\n");
  if (stage == "repair")
    fmt::print("fixit demo: 4/7 repair (replay teacher: the expert solutions)\n");
  if (stage == "verify") fmt::print("fixit demo: 5/7 verify\n");
  if (stage == "explain")
    fmt::print("fixit demo: 6/7 explain (replay explainer, {} length)\n", length.name);
  if (stage == "export")
    fmt::print("fixit demo: 7/7 export (unverified rows included, marked \"verified\": false)\n");
}

int run_demo(const DemoFlags& flags) {
  auto env = fixit_environment(flags.tasks_dir, flags.settings);
  if (!env) return kExitUsage;
  auto bin = fixit::find_length_bin(flags.length);
  if (!bin) {
    fmt::print(stderr, "ptxbench fixit demo: --length: {}\n", bin.error().message);
    return kExitUsage;
  }
  const std::filesystem::path folder =
      flags.out.empty() ? "runs/fixit-demo-" + util::utc_timestamp("%Y%m%d-%H%M%S") : flags.out;
  fixit::DemoObserver observer{
      .on_replay =
          [](const fixit::DemoRun& run) {
            fmt::print("fixit demo: 1/7 replaying {} solution file(s) into {}\n",
                       run.demo.entries.size(), run.dir.string());
            std::fflush(stdout);
          },
      .run = {.on_turn =
                  [&env](const agent::TurnEvent& event) { env->say(agent::describe(event)); }},
      .on_table = [](const std::string& table) { fmt::print("{}", table); },
      .chain = {.on_begin = [&](std::string_view stage) { print_demo_step(stage, *bin); },
                .on_outcome = print_outcome}};
  auto outcome = fixit::run_demo(*env, folder, flags.solutions_dir, *bin, observer);
  if (outcome.failure) return finish_chain(outcome.failure);
  if (auto card = util::read_file(outcome.export_dir / "README.md")) fmt::print("\n{}", *card);
  fmt::print("\nFixit folder: {}\n", folder.string());
  return kExitOk;
}

}  // namespace

void add_fixit_demo(CLI::App& demo, CommandContext& context) {
  auto flags = std::make_shared<DemoFlags>();
  demo.add_option("--out", flags->out, "Fixit folder (default: runs/fixit-demo-<UTC time>)");
  demo.add_option("--solutions", flags->solutions_dir, "Solutions directory (default: built-in)");
  demo.add_option("--tasks-dir", flags->tasks_dir, "Task suite (default: built-in)");
  add_fixit_settings_flags(demo, flags->settings);
  demo.add_option("--length", flags->length, "Explanation length bin")->capture_default_str();
  on_fixit_run(demo, context, flags, &run_demo);
}

}  // namespace ptxbench::cli
