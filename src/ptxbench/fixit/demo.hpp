// `fixit demo`, the built-in default: the project's solutions and broken controls replayed
// through the run loop (as `ptxbench demo` does) into FIXIT/source-run, then the stage chain
// over the broken controls' failures with the replay teacher and explainer.
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "ptxbench/agent/run_executor.hpp"
#include "ptxbench/demo/demo.hpp"
#include "ptxbench/fixit/chain.hpp"
#include "ptxbench/fixit/explanation_check.hpp"

namespace ptxbench::fixit {

struct DemoRun {
  demo::DemoPlan demo;
  std::filesystem::path dir;  // FIXIT/source-run
};

DemoRun plan_demo_run(const Environment& env, const FixitFolder& folder,
                      const std::filesystem::path& solutions_dir);

// Replays the demo run; returns its table (demo::render_demo_table).
util::Expected<std::string> execute_demo_run(const DemoRun& run, eval::Engine& engine,
                                             const agent::RunObserver& observer);

// The chain over the demo run: the broken controls' failures (their declared verdicts where the
// GPU stages did not run), one volume recipe "demo", replay teacher and explainer, unverified
// rows exported (marked), the run's passing turns as KernelGen rows.
ChainPlan demo_chain_plan(const DemoRun& run, const std::filesystem::path& solutions_dir,
                          const LengthBin& length, int parallel);

// What `fixit demo` reports as it goes (any may be empty).
struct DemoObserver {
  std::function<void(const DemoRun& run)> on_replay;       // before the demo run is replayed
  agent::RunObserver run;                                  // the demo run's turns
  std::function<void(const std::string& table)> on_table;  // its verdicts against the files'
  ChainObserver chain;                                     // the chain over its failures
};

struct DemoOutcome {
  // The engine, the folder or the demo run failing (stage "demo"), or the chain's failure.
  std::optional<StageFailure> failure;
  std::filesystem::path export_dir;  // the export, its card README.md in it
};

// The whole demo into `folder`: the engine opened first (or refused before anything is
// written), the demo run replayed, then the chain. `solutions_dir` empty: the built-in one.
DemoOutcome run_demo(const Environment& env, const std::filesystem::path& folder,
                     const std::filesystem::path& solutions_dir, const LengthBin& length,
                     const DemoObserver& observer);

}  // namespace ptxbench::fixit
