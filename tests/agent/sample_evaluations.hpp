// Evaluation values built by hand for the agent tests: one per kind of outcome a model sees.
#pragma once
#include <string>

#include "ptxbench/eval/evaluation.hpp"

namespace ptxbench::testing {

using eval::Stage;
using eval::StageStatus;
using eval::Verdict;

inline void set_stages(eval::Evaluation& e, int passed, StageStatus next,
                       std::string message = "") {
  const Stage all[] = {Stage::kExtract,     Stage::kLint,     Stage::kCompile,
                       Stage::kStaticSass,  Stage::kSanitize, Stage::kCorrectness,
                       Stage::kDynamicSass, Stage::kTiming};
  for (int i = 0; i < 8; ++i) {
    StageStatus status =
        i < passed ? StageStatus::kPassed : (i == passed ? next : StageStatus::kSkipped);
    if (next == StageStatus::kNotRun && i >= passed) status = StageStatus::kNotRun;
    e.stage(all[i]) = {
        .stage = all[i], .status = status, .seconds = 0.5, .message = i == passed ? message : ""};
  }
}

inline eval::Evaluation base(arch::Arch arch = arch::Arch::kHopper) {
  eval::Evaluation e;
  e.task = "gemm_n7168_k5120";
  e.arch = arch;
  e.source_name = "turn 1";
  e.source_hash = "0123456789abcdef";
  e.created_at = "2026-11-29T15:00:00Z";
  return e;
}

inline eval::KernelReport gemm_kernel() {
  return {.name = "_Z9gemm_mainv",
          .display_name = "gemm_main()",
          .registers = 168,
          .shared_bytes = 0,
          .spill_store_bytes = 0,
          .spill_load_bytes = 0};
}

inline eval::Evaluation no_code() {
  eval::Evaluation e = base();
  e.source_hash.clear();
  e.verdict = Verdict::kNoCode;
  e.message = "the response holds no fenced code block";
  set_stages(e, 0, StageStatus::kFailed, "no fenced code block");
  return e;
}

inline eval::Evaluation compile_error() {
  eval::Evaluation e = base();
  e.verdict = Verdict::kCompileError;
  e.message = "nvcc failed (exit 2)";
  set_stages(e, 2, StageStatus::kFailed, "exit 2");
  std::string log;
  for (int i = 1; i <= 60; ++i) {
    log += "candidate.cu(" + std::to_string(100 + i) +
           "): error: identifier \"wgmma_fence\" is undefined\n";
  }
  log += "60 errors detected in the compilation of \"candidate.cu\".\n";
  e.compile.log = log;
  return e;
}

inline eval::Evaluation not_run(arch::Arch arch = arch::Arch::kHopper) {
  eval::Evaluation e = base(arch);
  e.verdict = Verdict::kNotRun;
  e.message = "compiled and statically checked; the GPU stages were not run";
  set_stages(e, 4, StageStatus::kNotRun, "no GPU of this arch on this machine");
  e.compile.log =
      "candidate.cu(12): warning #177-D: variable \"unused\" was declared but never referenced\n"
      "ptxas info    : Used 168 registers, used 1 barriers\n";
  e.kernels = {gemm_kernel()};
  if (arch == arch::Arch::kHopper) {
    e.families = {{.family = "GMMA", .requested = true, .static_count = 128},
                  {.family = "TMA", .requested = true, .static_count = 0},
                  {.family = "SYNCS", .requested = true, .static_count = 40},
                  {.family = "STSM", .requested = false, .static_count = 8}};
  } else {
    e.families = {{.family = "UTCMMA", .requested = true, .static_count = 16},
                  {.family = "TMEM", .requested = true, .static_count = 6},
                  {.family = "TMA", .requested = true, .static_count = 4}};
  }
  e.workloads = {{.workload = "M8192", .headline = true, .status = Verdict::kNotRun}};
  return e;
}

inline eval::Evaluation incorrect() {
  eval::Evaluation e = base();
  e.verdict = Verdict::kIncorrectNumerical;
  e.message = "output C differs from the reference at M8192";
  set_stages(e, 5, StageStatus::kFailed, "M8192: C: 12.5% of elements out of tolerance");
  e.stage(Stage::kDynamicSass).status = StageStatus::kSkipped;
  e.kernels = {gemm_kernel()};
  e.kernels[0].spill_store_bytes = 24;
  e.kernels[0].spill_load_bytes = 24;
  e.families = {{.family = "GMMA", .requested = true, .static_count = 128},
                {.family = "TMA", .requested = true, .static_count = 12}};
  e.workloads = {{.workload = "M128",
                  .status = Verdict::kPassed,
                  .trials = 3,
                  .outputs = {{.name = "C",
                               .max_abs_error = 0.0039,
                               .max_rel_error = 0.0021,
                               .matched_ratio = 1.0,
                               .passed = true}}},
                 {.workload = "M8192",
                  .headline = true,
                  .status = Verdict::kIncorrectNumerical,
                  .message = "C: 12.5% of elements out of tolerance",
                  .trials = 1,
                  .outputs = {{.name = "C",
                               .max_abs_error = 3.25,
                               .max_rel_error = 0.87,
                               .matched_ratio = 0.875,
                               .first_bad_index = 1024,
                               .nan_count = 16,
                               .passed = false}}}};
  return e;
}

inline eval::Evaluation passed(double speedup) {
  eval::Evaluation e = base();
  e.verdict = Verdict::kPassed;
  e.message = "correct on every workload; GMMA, TMA, SYNCS executed substantially";
  set_stages(e, 8, StageStatus::kPassed);
  e.kernels = {gemm_kernel()};
  e.families = {{.family = "GMMA",
                 .requested = true,
                 .static_count = 128,
                 .executed_count = 2293760,
                 .flop_share = 0.999,
                 .substantial = true},
                {.family = "TMA",
                 .requested = true,
                 .static_count = 12,
                 .executed_count = 573440,
                 .substantial = true},
                {.family = "SYNCS",
                 .requested = true,
                 .static_count = 40,
                 .executed_count = 1146880,
                 .substantial = true}};
  eval::TimingStats candidate{.median_ms = 0.733 / speedup, .samples = 40, .converged = true};
  eval::TimingStats baseline{.median_ms = 0.733, .samples = 40, .converged = true};
  e.workloads = {{.workload = "M128", .status = Verdict::kPassed, .trials = 3},
                 {.workload = "M8192",
                  .headline = true,
                  .status = Verdict::kPassed,
                  .trials = 3,
                  .candidate = candidate,
                  .baseline = baseline,
                  .speedup = speedup,
                  .tflops = 2.0 * 8192 * 7168 * 5120 / (candidate.median_ms * 1e-3) / 1e12}};
  return e;
}

inline eval::Evaluation instructions_not_executed() {
  eval::Evaluation e = passed(0.41);
  e.verdict = Verdict::kInstructionsNotExecuted;
  e.message = "correct, but GMMA did not execute substantially";
  e.families[0].executed_count = 0;
  e.families[0].flop_share = 0.0;
  e.families[0].substantial = false;
  return e;
}

}  // namespace ptxbench::testing
