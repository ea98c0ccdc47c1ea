#include "ptxbench/fixit/demo.hpp"

#include "ptxbench/agent/solution_catalog.hpp"
#include "ptxbench/prompt/context_level.hpp"

namespace ptxbench::fixit {

namespace fs = std::filesystem;

DemoRun plan_demo_run(const Environment& env, const FixitFolder& folder,
                      const fs::path& solutions_dir) {
  agent::SolutionScan scan = agent::scan_solutions(solutions_dir);
  return DemoRun{.demo = demo::plan_demo(env.suite, scan, prompt::ContextLevel::kNone,
                                          prompt::default_context_dir(),
                                          eval::parallel_compiles(env.settings)),
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

}  // namespace ptxbench::fixit
