// A run as a Slurm job array: a batch script whose array task I runs shard I of the run
// (`ptxbench run ... --shard I/N --out RUN/shards/shard-I`), submitted with sbatch. Each shard
// writes its own run folder; `ptxbench merge` combines them (run_merge.hpp).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "ptxbench/util/expected.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::slurm {

struct ArrayJob {
  std::filesystem::path run_dir;      // RUN: holds slurm/ and shards/
  std::filesystem::path working_dir;  // where the shards run (relative paths of the command)
  std::vector<std::string> run_argv;  // `ptxbench run ...` without --slurm, --shards, --out
  int shards = 1;
  std::vector<std::string> sbatch_args;  // the user's, e.g. --partition=gpu --gres=gpu:1
};

// The batch script. The run and working folders and the user's sbatch options are written
// quoted into its #SBATCH lines (so `sbatch RUN/slurm/array.sh` alone resubmits it as it was);
// a value an #SBATCH line cannot hold (a newline, '"', '\\') is an error.
util::Expected<std::string> render_array_script(const ArrayJob& job);

// The argv of this `ptxbench run` process without the options that only the submitting call
// takes (--slurm ARGS, --shards N, --out DIR, also as --opt=value).
std::vector<std::string> shard_command(const std::vector<std::string>& argv);
// This process's argv (/proc/self/cmdline).
std::vector<std::string> own_argv();
// "--partition=gpu --gres=gpu:1" split on whitespace.
std::vector<std::string> split_arguments(const std::string& text);

struct SubmittedArray {
  std::string job_id;
  std::filesystem::path script;
};

// Writes RUN/slurm/array.sh and submits it with `sbatch --parsable`. sbatch's error otherwise
// (no sbatch here, a refused option), which also says that the script is ready to submit by hand.
util::Expected<SubmittedArray> submit_array_job(const ArrayJob& job, util::ProcessRunner& runner);

}  // namespace ptxbench::slurm
