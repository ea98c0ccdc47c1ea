#include "ptxbench/eval/gpu_pipeline/steps.hpp"
#include "ptxbench/eval/sanitize/sanitize_judgement.hpp"
#include "ptxbench/util/timestamps.hpp"

namespace ptxbench::eval::gpu_pipeline {

Sanitized run_sanitizer_tools(const VerdictRun& run, std::shared_ptr<const std::atomic<bool>> stop,
                              std::shared_ptr<const std::atomic<bool>> beside_running) {
  const auto& options = run.options();
  Sanitized out{.enabled = options.sanitize};
  if (!out.enabled) return out;
  const auto start = std::chrono::steady_clock::now();
  SmallRun small = run.single_candidate_run(smallest_workload(run.task));
  for (const auto& kernel : run.candidate.sass.kernels) out.own.push_back(kernel.name);
  SanitizerRequest request{.compute_sanitizer = options.compute_sanitizer,
                           .program_argv = std::move(small.argv),
                           .program_stdin = std::move(small.stdin_text),
                           .env = options.worker_env,
                           .read_paths = std::move(small.read_paths),
                           .racecheck_timeout = options.settings.racecheck_timeout,
                           .stop = std::move(stop),
                           .beside_running = std::move(beside_running)};
  request.harness_kernel_substring = harness_kernel_substring(run.jobs.front().op_type, out.own);
  // Racecheck runs only where it can find something: a kernel that touches shared memory.
  if (!racecheck_applies(run.candidate.sass)) {
    request.tools = {SanitizerTool::kMemcheck};
    request.not_needed = {SanitizerTool::kRacecheck};
  }
  out.harness_kernel_substring = request.harness_kernel_substring;
  out.report = run_sanitizer(run.context.runner, request);
  out.seconds = util::seconds_since(start);
  return out;
}

bool apply_sanitize(VerdictRun& run, const Sanitized& sanitized) {
  auto& record = run.e.stage(Stage::kSanitize);
  if (!sanitized.enabled) {
    record.status = StageStatus::kNotRun;
    record.message = "disabled";
    return true;
  }
  record.seconds = sanitized.seconds;
  // Each tool is one process; its cost beyond the worker's own time inside it is the tool's.
  for (const auto& tool_run : sanitized.report.runs) {
    if (tool_run.outcome == SanitizerOutcome::kSkipped ||
        tool_run.outcome == SanitizerOutcome::kNotApplicable)
      continue;
    ++record.processes;
    add_parts(record.parts, tool_run.cost.parts);
    add_part(record.parts, part::kSanitizerTool,
             tool_run.cost.seconds - tool_run.cost.worker_seconds.value_or(0.0));
  }
  SanitizeJudgement judged =
      judge_sanitize(sanitized.report, sanitized.own, sanitized.harness_kernel_substring);
  if (judged.verdict) {
    run.fail(Stage::kSanitize, *judged.verdict, judged.message);
    return false;
  }
  record.status = judged.status;
  record.message = judged.message;
  return true;
}

}  // namespace ptxbench::eval::gpu_pipeline
