#include "ptxbench/eval/gpu_pipeline/verdict_run.hpp"

#include <fmt/format.h>

namespace ptxbench::eval::gpu_pipeline {

using worker::Trust;
using worker::WorkerCall;
using worker::WorkerJob;

VerdictRun::VerdictRun(SequenceContext sequence, const task::Task& judged,
                       const CompiledCandidate& compiled, Evaluation& evaluation,
                       std::vector<WorkerJob> workload_jobs)
    : context(sequence),
      task(judged),
      candidate(compiled),
      e(evaluation),
      jobs(std::move(workload_jobs)) {}

WorkerCall VerdictRun::call(std::string mode, std::optional<std::string> stdin_text,
                            std::chrono::milliseconds timeout, Trust trust) const {
  WorkerCall made{.mode = std::move(mode),
                  .jobs_text = std::move(stdin_text),
                  .timeout = timeout,
                  .trust = trust,
                  .env = options().worker_env};
  // Every worker reads the baseline algorithm cache (a sandbox shows it no other folder of the
  // host); only a trusted one, which runs no candidate code, may write it: a candidate must not
  // choose the library's algorithm for the next candidate.
  if (context.cache_ready) {
    (trust == Trust::kTrusted ? made.write_paths : made.read_paths).push_back(options().cache_dir);
  }
  return made;
}

worker::WorkerOutcome VerdictRun::call_worker(const WorkerCall& made) const {
  return worker::call_worker(context.runner, options().worker, made);
}

void VerdictRun::fail(Stage stage, Verdict verdict, const std::string& message) {
  auto& record = e.stage(stage);
  record.status = StageStatus::kFailed;
  record.message = message;
  e.verdict = verdict;
  e.message = message;
}

void VerdictRun::skip_after(Stage failed) {
  for (auto s : {Stage::kSanitize, Stage::kCorrectness, Stage::kDynamicSass, Stage::kTiming}) {
    auto& record = e.stage(s);
    if (s <= failed || record.status != StageStatus::kSkipped) continue;
    record.message = fmt::format("not reached: {} failed", to_string(failed));
  }
}

SmallRun VerdictRun::single_candidate_run(const task::Workload& workload) const {
  WorkerJob job = configure(worker::make_job(task, workload));
  job.trials = 1;
  job.exchange_dir.clear();  // the wrapped run hands nothing over
  // The tools' memory grows after the worker's setup: no host-memory limit here.
  job.limits.host_memory_budget_bytes = 0;
  job.limits.call_timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(options().candidate_timeout);
  SmallRun run{.argv = {options().worker.string(), "candidate"},
               .stdin_text = worker::format_jobs({job})};
  if (context.cache_ready) run.read_paths.push_back(options().cache_dir);
  return run;
}

WorkerJob VerdictRun::configure(WorkerJob job) const {
  return configure_job(std::move(job), candidate, options());
}

WorkerJob configure_job(WorkerJob job, const CompiledCandidate& candidate,
                        const StageSequenceOptions& options) {
  job.trials = options.trials;
  job.library = candidate.shared_object;
  job.cache_dir = options.cache_dir;
  job.device_memory_limit_bytes = options.device_memory_limit_bytes;
  for (const auto& kernel : candidate.sass.kernels) job.candidate_kernels.push_back(kernel.name);
  job.limits = worker::CallLimits{.call_timeout = options.call_timeout,
                                  .host_memory_budget_bytes = options.host_memory_budget_bytes};
  job.request = correctness::CandidateRequest{};
  return job;
}

}  // namespace ptxbench::eval::gpu_pipeline
