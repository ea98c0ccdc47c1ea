// The steps of the GPU sequence (stage_sequence.hpp), one file each: each runs its tools or
// worker processes and applies its stage's judgement to the evaluation. A step that returns
// false has decided the verdict: the chain stops there.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "ptxbench/eval/gpu_pipeline/verdict_run.hpp"
#include "ptxbench/eval/gpu_pipeline/warm_judge.hpp"
#include "ptxbench/eval/proof/dynamic_sass.hpp"
#include "ptxbench/eval/sanitize/sanitizer.hpp"

namespace ptxbench::eval::gpu_pipeline {

// sanitize_step.cpp: the sanitizer's tools around one small run of the candidate (no Evaluation
// touched: it runs beside the correctness check), then their judgement.
struct Sanitized {
  bool enabled = false;
  SanitizerReport report;
  std::vector<std::string> own;  // the candidate's kernels
  std::string harness_kernel_substring;
  double seconds = 0;
};
Sanitized run_sanitizer_tools(const VerdictRun& run, std::shared_ptr<const std::atomic<bool>> stop,
                              std::shared_ptr<const std::atomic<bool>> beside_running);
bool apply_sanitize(VerdictRun& run, const Sanitized& sanitized);

// correctness_step.cpp: every shown workload, then the unseen ones (their failures recorded,
// and failing the verdict under the `require` policy): with the warm judge when the slot has
// one (warm_correctness_step.cpp), else with fresh candidate and judge processes per chunk. A
// warm judge that fails hands the verdict to the fresh path (the record's `judge` says why), and
// after kWarmJudgeFailures failures in a row the slot judges fresh.
bool check_correctness(VerdictRun& run);
bool check_correctness_fresh(VerdictRun& run);
// `judge_trouble`: set, and nothing of the verdict recorded, when the warm judge itself failed.
bool check_correctness_warm(VerdictRun& run, WarmJudge& judge, std::string& judge_trouble);
// What both paths end with: the stage failed (false), or passed after the unseen workloads'
// policy is applied (false when it fails the verdict).
bool correctness_failed(VerdictRun& run, std::chrono::steady_clock::time_point start,
                        Verdict verdict, const std::string& message);
bool correctness_passed(VerdictRun& run, std::chrono::steady_clock::time_point start);

// proof_step.cpp: the probe (and the ncu fallback) on the headline workload, then the proof's
// judgement; never stops the chain (a correct kernel is timed whether or not it is proven).
struct Probed {
  bool enabled = false;
  std::vector<KernelExecution> kernels;
  double seconds = 0;
  std::optional<worker::ProcessCost> probe;  // the probe process, when it ran
  std::optional<double> ncu_seconds;         // ncu's, when it ran
};
Probed run_probe_tools(const VerdictRun& run);
void apply_proof(VerdictRun& run, const Probed& probed);

// timing_step.cpp: one `worker time` process per timed workload; the first that fails fails the
// stage.
bool time_workloads(VerdictRun& run);

}  // namespace ptxbench::eval::gpu_pipeline
