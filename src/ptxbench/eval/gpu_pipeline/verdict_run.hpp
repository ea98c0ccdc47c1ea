// One candidate's pass through the GPU stages: what every step reads (the task, the compiled
// candidate, the worker jobs of its workloads with the verdict's seeds) and writes (the
// evaluation), and the few helpers the steps share. Made by StageSequence for each phase.
#pragma once
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/eval/correctness/correctness_protocol.hpp"
#include "ptxbench/eval/gpu_pipeline/stage_sequence.hpp"
#include "ptxbench/eval/reference_cache/reference_store.hpp"
#include "ptxbench/eval/worker/worker_client.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"

namespace ptxbench::eval {
class GpuNeighbours;  // timing/gpu_neighbours.hpp
}

namespace ptxbench::eval::gpu_pipeline {

class WarmJudge;     // warm_judge.hpp
class TimingStarts;  // timed_window.hpp

// What the sequence lends its steps: options, process runner, the GPU's answer to `info`.
struct SequenceContext {
  const StageSequenceOptions& options;
  util::ProcessRunner& runner;
  const worker::InfoReply* info = nullptr;  // null until `worker info` answered
  bool cache_ready = false;                 // the baseline cache folder exists
  WarmJudge* warm = nullptr;                // the slot's warm judge; null: fresh judges
  // Who else used the GPU in a timed window (NVML); null: not known, and why.
  const GpuNeighbours* neighbours = nullptr;
  std::string neighbours_note;
  TimingStarts* timing_starts = nullptr;  // timing processes started ahead of their turn
};

// One untrusted `worker candidate` run of one workload, one trial, nothing handed over: what
// the sanitizer (smallest workload) and ncu (the probe's workload) wrap.
struct SmallRun {
  std::vector<std::string> argv;
  std::string stdin_text;
  std::vector<std::filesystem::path> read_paths;  // the baseline cache (derived inputs)
};

class VerdictRun {
 public:
  VerdictRun(SequenceContext sequence, const task::Task& judged, const CompiledCandidate& compiled,
             Evaluation& evaluation, std::vector<worker::WorkerJob> workload_jobs);

  SequenceContext context;
  const task::Task& task;
  const CompiledCandidate& candidate;
  Evaluation& e;
  std::vector<worker::WorkerJob> jobs;  // the shown workloads, then the unseen ones
  std::size_t shown = 0;                // how many of `jobs` are shown workloads
  std::size_t headline = 0;
  bool unproven = false;  // the proof fell short only for want of a measurement
  // The judge's reference cache for this verdict (off: no dir) and what it answered.
  reference_cache::ReferenceCacheRequest references;
  correctness::ReferenceCacheCounts reference_counts;

  const StageSequenceOptions& options() const { return context.options; }
  // A worker call in `mode`: every worker reads the baseline algorithm cache, only a trusted one
  // writes it.
  worker::WorkerCall call(std::string mode, std::optional<std::string> stdin_text,
                          std::chrono::milliseconds timeout, worker::Trust trust) const;
  worker::WorkerOutcome call_worker(const worker::WorkerCall& call) const;
  // The stage fails with `verdict`, which becomes the evaluation's.
  void fail(Stage stage, Verdict verdict, const std::string& message);
  // Stages a failed one left undecided are "not reached"; one that ran keeps its record.
  void skip_after(Stage failed);
  SmallRun single_candidate_run(const task::Workload& workload) const;
  // A job of `workload` configured for this candidate (trials, library, limits).
  worker::WorkerJob configure(worker::WorkerJob job) const;
};

// A job of `workload` configured for `candidate` under `options`.
worker::WorkerJob configure_job(worker::WorkerJob job, const CompiledCandidate& candidate,
                                const StageSequenceOptions& options);

}  // namespace ptxbench::eval::gpu_pipeline
