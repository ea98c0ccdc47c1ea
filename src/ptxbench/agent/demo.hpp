// `ptxbench demo`: the project's solutions and broken variants replayed as a model's replies
// through the whole loop (prompt -> reply -> evaluation -> feedback), one single-turn
// trajectory per file, and the table of what came out against what each file expects.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "ptxbench/agent/run_executor.hpp"
#include "ptxbench/agent/solution_catalog.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::agent {

struct DemoEntry {
  SolutionFile solution;
  TrajectorySpec spec;
};

struct DemoPlan {
  RunPlan plan;
  std::vector<DemoEntry> entries;  // in plan order
  std::vector<std::string> notes;  // files skipped and why, core cells without a solution
};

// Replay model names: files under hopper/ and blackwell/ reply as "expert", under broken/ as
// "broken", elsewhere as their folder's name.
std::string demo_model_name(const SolutionFile& solution);

DemoPlan plan_demo(const std::vector<task::Task>& suite, const SolutionScan& scan,
                   prompt::ContextLevel context, const std::filesystem::path& context_dir,
                   int concurrency);

// How a verdict compares with the file's expectation.
enum class Agreement {
  kAsExpected,
  kConsistent,  // NOT_RUN where a GPU-stage verdict was expected: nothing contradicts it
  kUnexpected,
};
Agreement agreement(eval::Verdict expected, eval::Verdict got);
std::string_view to_string(Agreement agreement);

// The results table (one row per file) and, when GPU stages were not run, which and why.
std::string render_demo_table(const std::vector<DemoEntry>& entries,
                              const std::vector<Trajectory>& trajectories);

}  // namespace ptxbench::agent
