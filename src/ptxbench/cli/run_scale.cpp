#include "ptxbench/cli/run_scale.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/gpus/gpu_list.hpp"
#include "ptxbench/sandbox/evaluation_sandbox.hpp"
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
  sub.add_option("--gpus", flags.gpus,
                 "all, or a list of GPUs (0,1,3): one worker and queue per GPU (default: one "
                 "worker)");
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

std::unique_ptr<agent::EvaluationService> make_run_evaluations(
    const RunScaleFlags& flags, const agent::EvaluationSettings& settings) {
  // Each evaluator shows its own artefact folder to the worker's sandbox (Evaluator's constructor).
  auto box = sandbox::make_evaluation_sandbox(settings.sandbox,
                                              std::make_shared<util::SystemProcessRunner>(), {});
  if (box.description != "full" && box.description != "off")
    fmt::print(stderr, "ptxbench run: WARNING: sandbox {}\n", box.description);
  std::shared_ptr<util::ProcessRunner> runner = box.worker;
  std::vector<std::shared_ptr<eval::GpuStages>> workers;
  if (settings.gpu) {
    auto slots = gpus::gpu_slots(flags.gpus, runner);
    if (!slots) {
      fmt::print(stderr, "ptxbench run: {}\n", slots.error().message);
      return nullptr;
    }
    workers = std::move(*slots);
  }
  return std::make_unique<agent::EvaluationService>(
      eval::EvaluatorOptions{.compile_timeout = settings.compile_timeout,
                             .run_gpu_stages = settings.gpu,
                             .compile_runner = box.compiler,
                             .sandbox = box.description},
      runner, std::move(workers), settings.parallel);
}

}  // namespace ptxbench::cli
