#include "ptxbench/agent/run_executor.hpp"

#include <fmt/format.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "ptxbench/config.hpp"
#include "ptxbench/util/check.hpp"

namespace ptxbench::agent {
namespace {

using Json = nlohmann::json;
using PromptKey = std::tuple<std::string, arch::Arch, prompt::ContextLevel>;

PromptKey key_of(const TrajectorySpec& spec) {
  return {spec.task->name, spec.arch, spec.context};
}

// Writes run.json for a new run; for an existing one checks the grid and records the restart.
util::Expected<bool> open_run(const RunPlan& plan, const RunDirectory& directory) {
  auto existing = directory.read_run_json();
  if (!existing) return existing.error();
  Json run;
  if (*existing) {
    run = std::move(**existing);
    if (run.value("grid", Json()) != plan.grid) {
      return util::make_error(fmt::format(
          "{} holds a run over a different grid ({}); this command asks for {}. Use another "
          "--out, or rerun the original command to resume it.",
          directory.root().string(), run.value("grid", Json()).dump(), plan.grid.dump()));
    }
  } else {
    run = {{"ptxbench_version", config::kVersion},
           {"trajectory_format", kTrajectoryFormat},
           {"ptxbench_format", kPtxbenchFormat},
           {"created_at", utc_timestamp()},
           {"grid", plan.grid},
           {"config", plan.config},
           {"sessions", Json::array()}};
  }
  run["sessions"].push_back(
      {{"started_at", utc_timestamp()}, {"ptxbench_version", config::kVersion}});
  directory.write_run_json(run);
  return true;
}

// One prompt per (task, arch, context) of the plan.
util::Expected<std::map<PromptKey, prompt::Prompt>> build_prompts(const RunPlan& plan) {
  std::map<PromptKey, prompt::Prompt> prompts;
  for (const auto& spec : plan.trajectories) {
    PromptKey key = key_of(spec);
    if (prompts.contains(key)) continue;
    auto built = prompt::build_prompt(*spec.task, spec.arch, spec.context, plan.context_dir,
                                      plan.context_hook);
    if (!built) return util::make_error("prompt: " + built.error().message);
    prompts.emplace(key, std::move(*built));
  }
  return prompts;
}

// The plan's trajectory indices by model slot, in plan order.
std::vector<std::vector<std::size_t>> model_queues(const RunPlan& plan) {
  std::vector<std::vector<std::size_t>> queues(plan.models.size());
  for (std::size_t i = 0; i < plan.trajectories.size(); ++i) {
    std::size_t slot = plan.models.size();
    for (std::size_t m = 0; m < plan.models.size(); ++m) {
      if (plan.models[m].config.name == plan.trajectories[i].model) slot = m;
    }
    PTXBENCH_CHECK(slot < plan.models.size(),
                   "trajectory of an unknown model: " + plan.trajectories[i].model);
    queues[slot].push_back(i);
  }
  return queues;
}

}  // namespace

std::vector<TrajectorySpec> expand_grid(const RunConfig& config,
                                        const std::vector<const task::Task*>& tasks) {
  std::vector<TrajectorySpec> specs;
  auto add = [&](const model::ProviderConfig& model, const task::Task* task, arch::Arch arch,
                 prompt::ContextLevel level) {
    for (int sample = 0; sample < config.samples; ++sample) {
      specs.push_back({.model = model.name,
                       .provider = std::string(model::to_string(model.kind)),
                       .task = task,
                       .arch = arch,
                       .context = level,
                       .sample = sample});
    }
  };
  for (const auto& model : config.models) {
    if (!config.cells.empty()) {
      for (const auto& cell : config.cells) {
        for (const auto* task : tasks) {
          if (task->name != cell.task) continue;
          for (auto arch : config.archs) add(model, task, arch, cell.context);
        }
      }
      continue;
    }
    for (const auto* task : tasks) {
      for (auto arch : config.archs) {
        for (auto level : config.contexts) add(model, task, arch, level);
      }
    }
  }
  return specs;
}

util::Expected<RunSummary> execute_run(const RunPlan& plan, const RunDirectory& directory,
                                       const EvaluateFn& evaluate, const RunObserver& observer) {
  auto say = [&observer](std::string_view line) {
    if (observer.on_message) observer.on_message(line);
  };
  auto built_prompts = build_prompts(plan);
  if (!built_prompts) return built_prompts.error();
  const auto& prompts = *built_prompts;
  if (auto opened = open_run(plan, directory); !opened) return opened.error();

  // What the directory already holds.
  std::vector<std::optional<Trajectory>> existing(plan.trajectories.size());
  int done_before = 0, resumed = 0;
  for (std::size_t i = 0; i < plan.trajectories.size(); ++i) {
    auto loaded = directory.load_trajectory(plan.trajectories[i].id());
    if (!loaded) return loaded.error();
    existing[i] = std::move(*loaded);
    if (existing[i] && existing[i]->info.status == TrajectoryStatus::kFinished)
      ++done_before;
    else if (existing[i])
      ++resumed;
  }
  say(fmt::format("{} trajectories: {} finished before, {} to resume, {} new",
                  plan.trajectories.size(), done_before, resumed,
                  plan.trajectories.size() - static_cast<std::size_t>(done_before + resumed)));

  std::vector<std::optional<Trajectory>> results(plan.trajectories.size());
  std::mutex errors_mutex;
  std::vector<std::string> internal_errors;
  std::atomic<int> turns_run{0};
  auto on_turn = [&observer, &turns_run](const TurnEvent& event) {
    ++turns_run;
    if (observer.on_turn) observer.on_turn(event);
  };

  std::vector<std::jthread> workers;
  // One queue of plan indices per model; each model's threads drain its own.
  const auto queues = model_queues(plan);
  std::vector<std::atomic<std::size_t>> next(plan.models.size());
  for (std::size_t m = 0; m < plan.models.size(); ++m) {
    const ModelSlot& model = plan.models[m];
    int threads =
        std::min<int>(model.config.limits.concurrency, static_cast<int>(queues[m].size()));
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, m] {
        TrajectoryRunner runner(directory, *plan.models[m].provider, evaluate, plan.agent, on_turn);
        for (std::size_t k = next[m]++; k < queues[m].size(); k = next[m]++) {
          std::size_t index = queues[m][k];
          const TrajectorySpec& spec = plan.trajectories[index];
          try {
            Trajectory trajectory =
                runner.run(spec, prompts.at(key_of(spec)), std::move(existing[index]));
            if (observer.on_trajectory) observer.on_trajectory(trajectory);
            results[index] = std::move(trajectory);
          } catch (const std::exception& e) {
            // Our failure, not the model's: leave the trajectory as saved, resumable.
            std::lock_guard lock(errors_mutex);
            internal_errors.push_back(fmt::format("{}: {}", spec.id(), e.what()));
          }
        }
      });
    }
  }
  workers.clear();  // joins

  RunSummary summary{.internal_errors = std::move(internal_errors), .turns_run = turns_run.load()};
  for (auto& result : results) {
    if (!result) continue;
    if (result->info.status == TrajectoryStatus::kFinished) ++summary.finished;
    if (result->info.status == TrajectoryStatus::kFailed) ++summary.failed;
    summary.trajectories.push_back(std::move(*result));
  }
  return summary;
}

}  // namespace ptxbench::agent
