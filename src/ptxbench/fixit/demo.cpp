#include "ptxbench/fixit/demo.hpp"

#include "ptxbench/agent/solution_catalog.hpp"
#include "ptxbench/prompt/context_level.hpp"

namespace ptxbench::fixit {

namespace fs = std::filesystem;

DemoRun plan_demo_run(const Environment& env, const FixitFolder& folder,
                      const fs::path& solutions_dir) {
  agent::SolutionScan scan = agent::scan_solutions(solutions_dir);
  return DemoRun{
      .demo = demo::plan_demo(env.suite, scan, prompt::ContextLevel::kNone,
                              prompt::default_context_dir(), eval::parallel_compiles(env.settings)),
      .dir = folder.root() / "source-run"};
}

util::Expected<std::string> execute_demo_run(const DemoRun& run, eval::Engine& engine,
                                             const agent::RunObserver& observer) {
  auto directory = agent::RunDirectory::open(run.dir);
  if (!directory) return directory.error();
  auto summary = agent::execute_run(run.demo.plan, *directory, engine.function(), observer);
  if (!summary) return summary.error();
  return demo::render_demo_table(run.demo.entries, summary->trajectories);
}

ChainPlan demo_chain_plan(const DemoRun& run, const fs::path& solutions_dir,
                          const LengthBin& length, int parallel) {
  TeacherChoice replay{.replay_solutions = solutions_dir.string()};
  return ChainPlan{.runs = {run.dir},
                   .filters = {.models = {"broken"}, .include_not_run = true},
                   .recipes = {Recipe{.name = "demo", .mode = RecipeMode::kVolume}},
                   .teacher = replay,
                   .explainer = replay,
                   .repair = {.max_turns = 2, .concurrency = parallel},
                   .explain = {.limits = {.bin = length}},
                   .include_unverified = true,
                   .kernelgen_runs = {run.dir}};
}

DemoOutcome run_demo(const Environment& env, const fs::path& folder_path,
                     const fs::path& solutions_dir, const LengthBin& length,
                     const DemoObserver& observer) {
  auto failed = [](const std::string& message) {
    return DemoOutcome{.failure = StageFailure{.stage = "demo", .message = message}};
  };
  auto engine = engine_of(env, "demo");
  if (!engine) return failed(engine.error().message);
  auto folder = FixitFolder::open(folder_path);
  if (!folder) return failed(folder.error().message);
  const fs::path solutions = solutions_dir.empty() ? agent::default_solutions_dir() : solutions_dir;
  // 1. The demo run: the project's solutions and broken controls replayed through the loop.
  DemoRun run = plan_demo_run(env, *folder, solutions);
  if (observer.on_replay) observer.on_replay(run);
  auto table = execute_demo_run(run, **engine, observer.run);
  if (!table) return failed(table.error().message);
  if (observer.on_table) observer.on_table(*table);
  // 2-7. The broken controls' failures through the chain.
  DemoOutcome outcome;
  ChainObserver chain{.on_begin = observer.chain.on_begin,
                      .on_outcome = [&](const StageOutcome& stage) {
                        if (observer.chain.on_outcome) observer.chain.on_outcome(stage);
                        if (const auto* done = std::get_if<ExportOutcome>(&stage))
                          outcome.export_dir = done->dir;
                      }};
  auto plan = demo_chain_plan(run, solutions, length, eval::parallel_compiles(env.settings));
  outcome.failure = run_chain(*folder, env, plan, chain);
  return outcome;
}

}  // namespace ptxbench::fixit
