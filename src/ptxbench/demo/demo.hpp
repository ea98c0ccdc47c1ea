// `ptxbench demo`, a client of the engine and the run loop: the project's solutions and broken
// variants replayed as a model's replies through the whole loop (prompt -> reply -> evaluation ->
// feedback), one single-turn trajectory per file, and the table of what came out against what each
// file expects.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "ptxbench/agent/run_executor.hpp"
#include "ptxbench/agent/solution_catalog.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::demo {

using agent::SolutionFile;
using agent::SolutionScan;
using agent::Trajectory;
using agent::TrajectorySpec;

struct DemoEntry {
  SolutionFile solution;
  TrajectorySpec spec;
};

struct DemoPlan {
  agent::RunPlan plan;
  std::vector<DemoEntry> entries;    // in plan order
  std::vector<DemoEntry> set_aside;  // not replayed: see set_aside_gpu_only()
  std::vector<std::string> notes;    // files skipped and why, core cells without a solution
};

// Replay model names: files under hopper/ and blackwell/ reply as "expert", under broken/ as
// "broken", elsewhere as their folder's name.
std::string demo_model_name(const SolutionFile& solution);

DemoPlan plan_demo(const std::vector<task::Task>& suite, const SolutionScan& scan,
                   prompt::ContextLevel context, const std::filesystem::path& context_dir,
                   int concurrency);

// Where no GPU stage can run for an arch, the expected verdict of a non-expert file (a broken
// variant or a simple kernel; a GPU-stage verdict) cannot be shown: compiling it would only
// repeat NOT_RUN. Those entries move to
// set_aside (still rows of the table) and out of the plan; the expert solutions always run.
// Returns how many were set aside.
std::size_t set_aside_gpu_only(DemoPlan& demo, const std::function<bool(arch::Arch)>& gpu_runs);

// How a verdict compares with the file's expectation.
enum class Agreement {
  kAsExpected,
  kConsistent,  // NOT_RUN where a GPU-stage verdict was expected: nothing contradicts it
  kUnexpected,
};
Agreement agreement(eval::Verdict expected, eval::Verdict got);
std::string_view to_string(Agreement agreement);

// How many replayed files ended with a verdict their header does not expect.
int count_unexpected(const std::vector<DemoEntry>& entries,
                     const std::vector<Trajectory>& trajectories);

// The results table (one row per file) and, when GPU stages were not run, which and why.
std::string render_demo_table(const std::vector<DemoEntry>& entries,
                              const std::vector<Trajectory>& trajectories,
                              const std::vector<DemoEntry>& set_aside = {});

}  // namespace ptxbench::demo
