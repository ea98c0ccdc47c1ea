#include "ptxbench/cli/run_scale.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/slurm/array_job.hpp"
#include "ptxbench/slurm/shard_plan.hpp"

namespace ptxbench::cli {

void add_run_scale_flags(CLI::App& sub, RunScaleFlags& flags) {
  sub.add_option("--slurm", flags.sbatch_args,
                 "Submit the run as a Slurm job array instead of running it; the value holds "
                 "sbatch options (\"--partition=gpu --gres=gpu:1\", or \"\" for none). Each shard "
                 "writes OUT/shards/shard-I; `ptxbench merge OUT` combines them (docs/slurm.md)");
  sub.add_option("--shards", flags.shards, "With --slurm: shards (default: one per task)")
      ->check(CLI::PositiveNumber);
  sub.add_option("--shard", flags.shard, "Run only shard I/N of the tasks (set by the array job)");
}

int submit_run_to_slurm(const RunScaleFlags& flags, const std::filesystem::path& out,
                        const std::vector<const task::Task*>& tasks) {
  const int shards = slurm::shard_count(tasks.size(), flags.shards);
  slurm::ArrayJob job{.run_dir = out,
                      .working_dir = std::filesystem::current_path(),
                      .run_argv = slurm::shard_command(slurm::own_argv()),
                      .shards = shards,
                      .sbatch_args = slurm::split_arguments(*flags.sbatch_args)};
  util::SystemProcessRunner runner;
  auto submitted = slurm::submit_array_job(job, runner);
  if (!submitted) {
    fmt::print(stderr, "ptxbench run: {}\n", submitted.error().message);
    return kExitUsage;
  }
  fmt::print("submitted job array {} ({} shards, script {}); when it is done: ptxbench merge {}\n",
             submitted->job_id, shards, submitted->script.string(), out.string());
  return kExitOk;
}

bool keep_shard_tasks(const RunScaleFlags& flags, std::vector<const task::Task*>& tasks) {
  if (flags.shard.empty()) return true;
  auto shard = slurm::parse_shard_spec(flags.shard);
  if (!shard) {
    fmt::print(stderr, "ptxbench run: {}\n", shard.error().message);
    return false;
  }
  tasks = slurm::shard_tasks(tasks, *shard);
  return true;
}

}  // namespace ptxbench::cli
