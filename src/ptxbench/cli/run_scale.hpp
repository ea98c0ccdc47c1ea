// `ptxbench run` at scale: --slurm submits the run as a job array instead of running it,
// --shard I/N (what each array task passes) keeps one shard's tasks. Kept apart from
// run_command.cpp, which calls these functions.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/agent/run_config.hpp"
#include "ptxbench/task/task.hpp"

namespace CLI {
class App;
}

namespace ptxbench::cli {

struct RunScaleFlags {
  std::optional<std::string> sbatch_args;  // --slurm "ARGS": submit instead of running
  int shards = 0;                          // --shards N (default: one per task)
  std::string shard;                       // --shard I/N (set by the array script)
};

void add_run_scale_flags(CLI::App& sub, RunScaleFlags& flags);

// Submits the job array for the run in `out`; returns the exit code.
int submit_run_to_slurm(const RunScaleFlags& flags, const std::filesystem::path& out,
                        const std::vector<const task::Task*>& tasks);

// Keeps the tasks of --shard when given; false (after printing why) when it is malformed.
bool keep_shard_tasks(const RunScaleFlags& flags, std::vector<const task::Task*>& tasks);

}  // namespace ptxbench::cli
