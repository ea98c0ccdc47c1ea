// Runs a set of trajectories into a run directory: writes run.json (or checks that a rerun
// asks for the same grid), builds the prompts, resumes what the directory already holds, and
// runs each model's trajectories on as many threads as its concurrency limit, with
// evaluations shared through one EvaluateFn.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/agent/run_config.hpp"
#include "ptxbench/agent/run_directory.hpp"
#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/model/provider.hpp"
#include "ptxbench/model/provider_config.hpp"

namespace ptxbench::agent {

struct ModelSlot {
  model::ProviderConfig config;
  std::shared_ptr<model::Provider> provider;
};

struct RunPlan {
  std::vector<ModelSlot> models;
  std::vector<TrajectorySpec> trajectories;  // each names one of `models`
  AgentOptions agent;
  std::filesystem::path context_dir;
  prompt::ContextHook context_hook;  // the retrieval level's text (ptxbench run --fixit)
  nlohmann::json config = nlohmann::json::object();  // run.json's "config"
  nlohmann::json grid = nlohmann::json::object();    // must match on resume
};

// models x tasks x archs x contexts x samples, in that nesting order; with cells, models x
// cells x archs x samples.
std::vector<TrajectorySpec> expand_grid(const RunConfig& config,
                                        const std::vector<const task::Task*>& tasks);

struct RunObserver {
  std::function<void(const TurnEvent&)> on_turn;          // after the turn is saved
  std::function<void(const Trajectory&)> on_trajectory;   // when its thread is done with it
  std::function<void(std::string_view line)> on_message;  // what the run is doing
};

struct RunSummary {
  std::vector<Trajectory> trajectories;      // in plan order; ones lost to an internal error absent
  std::vector<std::string> internal_errors;  // "<id>: <what>", resumable by rerunning
  int finished = 0;
  int failed = 0;
  int turns_run = 0;  // in this process
};

// Errors: a different grid in an existing run.json, a missing context document, an
// unreadable trajectory file.
util::Expected<RunSummary> execute_run(const RunPlan& plan, const RunDirectory& directory,
                                       const EvaluateFn& evaluate, const RunObserver& observer);

}  // namespace ptxbench::agent
