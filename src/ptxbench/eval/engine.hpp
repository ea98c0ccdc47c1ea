// The engine: the one front door of every command that judges candidates (eval, run, serve,
// demo, fixit). open_engine(settings) builds the sandbox (refusing a strict one that cannot
// work here), finds the worker, sets up one GPU slot per GPU of the settings and the one
// Scheduler they share; commands only parse flags, submit candidates and print.
#pragma once
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/eval/scheduler.hpp"
#include "ptxbench/eval/settings.hpp"
#include "ptxbench/util/expected.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {

// What tests replace; the defaults are the real machine's.
struct EngineSeams {
  std::shared_ptr<util::ProcessRunner> processes;  // null: util::SystemProcessRunner
  // The GPU slots over the sandboxed worker runner; null: the build's worker per GPU of
  // settings.gpus (gpu_slots.hpp).
  std::function<util::Expected<std::vector<std::shared_ptr<GpuStages>>>(
      std::shared_ptr<util::ProcessRunner> worker_runner, const JudgeSettings& judge)>
      gpu_slots;
};

class Engine {
 public:
  Engine(EvaluationSettings settings, std::string sandbox_description,
         std::unique_ptr<Scheduler> scheduler);

  const EvaluationSettings& settings() const { return settings_; }
  // The record's "sandbox" field: "full", "partial: ...", "off".
  const std::string& sandbox_description() const { return sandbox_; }
  // What the user should know before the first verdict (a sandbox with layers missing).
  std::optional<std::string> warning() const;
  std::size_t gpu_count() const { return scheduler_->gpu_slot_count(); }

  std::future<Evaluation> submit(const task::Task& task, arch::Arch arch, CandidateInput input);
  Evaluation evaluate(const task::Task& task, arch::Arch arch, const CandidateInput& input);
  // The blocking evaluate as a function (the agent's EvaluateFn); the engine must outlive it.
  std::function<Evaluation(const task::Task&, arch::Arch, const CandidateInput&)> function();
  std::vector<Evaluation> evaluate_pairs(arch::Arch arch, const std::vector<TaskCandidate>& pairs,
                                         const VerdictSink& sink = {});
  void evaluate_stream(const CandidateSource& next, const VerdictSink& sink);
  bool gpu_stages_available(arch::Arch arch, std::string& why);

 private:
  EvaluationSettings settings_;
  std::string sandbox_;
  std::unique_ptr<Scheduler> scheduler_;
};

// A strict sandbox that cannot be set up on this machine, a malformed --gpus: the message
// names the flag and what to do; every command prints it and exits 2.
util::Expected<std::shared_ptr<Engine>> open_engine(const EvaluationSettings& settings,
                                                    EngineSeams seams = {});

}  // namespace ptxbench::eval
