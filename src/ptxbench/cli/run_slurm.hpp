// The Slurm side of `ptxbench run`: --slurm submits the run as a job array instead of running
// it, and --shard I/N (what each array task passes) keeps one shard's tasks. Kept apart from
// run_command.cpp, which calls these two functions.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/task/task.hpp"

namespace CLI {
class App;
}

namespace ptxbench::cli {

struct SlurmFlags {
  std::optional<std::string> sbatch_args;  // --slurm "ARGS": submit instead of running
  int shards = 0;                          // --shards N (default: one per task)
  std::string shard;                       // --shard I/N (set by the array script)
};

void add_slurm_flags(CLI::App& sub, SlurmFlags& flags);

// Submits the job array for the run in `out`; returns the exit code.
int submit_run_to_slurm(const SlurmFlags& flags, const std::filesystem::path& out,
                        const std::vector<const task::Task*>& tasks);

// Keeps the tasks of --shard when given; false (after printing why) when it is malformed.
bool keep_shard_tasks(const SlurmFlags& flags, std::vector<const task::Task*>& tasks);

}  // namespace ptxbench::cli
