// Stage 7: the CUPTI probe on the headline workload, ncu for the kernels it leaves inconclusive
// (proof/dynamic_sass.hpp judges).
#include "ptxbench/eval/gpu_pipeline/steps.hpp"
#include "ptxbench/eval/proof/ncu_counts.hpp"
#include "ptxbench/eval/proof/probe_report.hpp"
#include "ptxbench/util/timestamps.hpp"

namespace ptxbench::eval::gpu_pipeline {

Probed run_probe_tools(const VerdictRun& run) {
  const auto& options = run.options();
  Probed out{.enabled = options.prove_execution};
  if (!out.enabled) return out;
  const auto start = std::chrono::steady_clock::now();
  ProbeInvocation invocation{.worker_argv = {options.worker.string(), "probe"},
                             .job = run.jobs[run.headline],
                             .cubin = run.candidate.cubin,
                             .timeout = options.probe_timeout,
                             .env = options.worker_env};
  if (run.context.cache_ready) invocation.read_paths.push_back(options.cache_dir);
  if (!kernels_to_probe(run.candidate.sass).empty()) {
    worker::ProcessCost probe_cost;
    out.kernels = executions_from_probe(run_probe(run.context.runner, invocation, &probe_cost),
                                        run.candidate.sass, run.e.arch);
    out.probe = probe_cost;
    if (!options.ncu.empty()) {
      // The probe's workload, so both counts share the task FLOPs they are judged against.
      SmallRun small = run.single_candidate_run(run.task.workloads[run.headline]);
      NcuRequest ncu{.ncu = options.ncu,
                     .program_argv = std::move(small.argv),
                     .program_stdin = std::move(small.stdin_text),
                     .env = options.worker_env,
                     .read_paths = std::move(small.read_paths),
                     .timeout = options.ncu_timeout};
      double ncu_seconds = -1;
      fill_inconclusive_with_ncu(run.context.runner, ncu, run.candidate.sass, run.e.arch,
                                 out.kernels, &ncu_seconds);
      if (ncu_seconds >= 0) out.ncu_seconds = ncu_seconds;
    }
  }
  out.seconds = util::seconds_since(start);
  return out;
}

void apply_proof(VerdictRun& run, const Probed& probed) {
  auto& record = run.e.stage(Stage::kDynamicSass);
  if (!probed.enabled) {
    record.status = StageStatus::kNotRun;
    record.message = "disabled";
    return;
  }
  const auto& task = run.task;
  auto requested_it = task.requested.find(run.e.arch);
  std::vector<std::string> requested =
      requested_it == task.requested.end() ? std::vector<std::string>{} : requested_it->second;
  ExecutionProof proof =
      judge_execution(run.candidate.sass, probed.kernels, requested, task.flops(task.headline()));
  run.unproven = !proof.all_requested_substantial() && !proof.requested_measured_short;
  apply_execution_proof(proof, run.e);
  record.seconds = probed.seconds;
  if (probed.probe) worker::count_process(record, *probed.probe);
  if (probed.ncu_seconds) {
    ++record.processes;
    add_part(record.parts, part::kProfiler, *probed.ncu_seconds);
  }
  record.message = proof.message;
  record.status = proof.all_requested_substantial() ? StageStatus::kPassed : StageStatus::kFailed;
}

}  // namespace ptxbench::eval::gpu_pipeline
