// Stage 8: one `worker time` process per timed workload, so each starts on a clean GPU context
// (timing/timing_judgement.hpp judges). The headline is among them and stays the evaluation's
// figure; the stage message adds the geometric mean when more were timed.
#include <fmt/format.h>

#include "ptxbench/eval/gpu_pipeline/steps.hpp"
#include "ptxbench/eval/gpu_pipeline/timed_window.hpp"
#include "ptxbench/eval/kernel_name.hpp"
#include "ptxbench/eval/timing/speed_of_light.hpp"
#include "ptxbench/eval/timing/timing_judgement.hpp"
#include "ptxbench/util/live_process.hpp"
#include "ptxbench/util/timestamps.hpp"

namespace ptxbench::eval::gpu_pipeline {
namespace {

// The headline's launch records beside ptxas' figures, per kernel of the cubin.
void apply_launches(Evaluation& e,
                    const std::vector<std::pair<std::string, LaunchResources>>& launches) {
  for (const auto& [name, resources] : launches) {
    const KernelName launched(name);
    for (auto& kernel : e.kernels) {
      if (names_one_of(KernelName(kernel.name), {launched})) kernel.launched = resources;
    }
  }
}

std::optional<SpeedOfLight> bound_of(const VerdictRun& run, const worker::WorkerJob& job,
                                     double flops, const TimingStats& candidate_time) {
  const worker::InfoReply* info = run.context.info;
  if (info == nullptr) return std::nullopt;
  double bytes = 0;
  for (const auto& t : job.inputs) bytes += static_cast<double>(t.bytes());
  for (const auto& t : job.outputs) bytes += static_cast<double>(t.bytes());
  return speed_of_light({.flops = flops,
                         .bytes = bytes,
                         .sm_count = info->sm_count,
                         .sm_clock_mhz = candidate_time.sm_clock_mhz,
                         .arch = run.e.arch,
                         .gpu_name = info->name,
                         .candidate_ms = candidate_time.median_ms});
}

// One timed workload into the evaluation, or its failure (false).
bool time_one(VerdictRun& run, std::size_t j, bool several, std::string& headline_message,
              std::chrono::steady_clock::time_point start) {
  const std::string& name = run.jobs[j].workload;
  const std::string prefix = several ? fmt::format("timing {}: ", name) : "timing: ";
  std::unique_ptr<util::LiveProcess> started;
  if (run.context.timing_starts != nullptr) started = run.context.timing_starts->take(&run.e, j);
  TimedWindow timed = time_alone(run, j, std::move(started));
  const worker::WorkerOutcome& outcome = timed.outcome;
  run.e.stage(Stage::kTiming).seconds = util::seconds_since(start);
  // Every window was a process; the last one's parts are known.
  run.e.stage(Stage::kTiming).processes += timed.window.attempts - 1;
  worker::count_process(run.e.stage(Stage::kTiming), outcome.cost);
  if (!outcome.ok()) {
    run.fail(Stage::kTiming, outcome.verdict, prefix + outcome.message);
    return false;
  }
  auto reply = timing::timing_reply_from_json(outcome.reply->body);
  if (!reply) {
    run.fail(Stage::kTiming, Verdict::kInternalError, prefix + reply.error().message);
    return false;
  }
  const double flops = run.task.flops(run.task.workloads[j]);
  worker::TimingJudgement judged = worker::judge_timing(*reply, flops);
  if (judged.verdict != Verdict::kPassed) {
    run.fail(Stage::kTiming, judged.verdict, prefix + judged.message);
    return false;
  }
  if (j == run.headline) {
    headline_message = judged.message;
    apply_launches(run.e, judged.launches);
  }
  for (auto& w : run.e.workloads) {
    if (w.workload != name) continue;
    w.candidate = judged.candidate;
    w.baseline = judged.baseline;
    w.speedup = judged.speedup;
    w.tflops = judged.tflops;
    w.speed_of_light = bound_of(run, run.jobs[j], flops, *judged.candidate);
    w.timing_window = timed.window;
  }
  return true;
}

}  // namespace

bool time_workloads(VerdictRun& run) {
  const auto& options = run.options();
  auto& record = run.e.stage(Stage::kTiming);
  if (!options.time) {
    record.status = StageStatus::kNotRun;
    record.message = "disabled";
    return true;
  }
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::size_t> timed = options.settings.timed_workloads.select(run.task);
  const bool several = timed.size() > 1;
  std::string headline_message;
  for (std::size_t j : timed) {
    if (!time_one(run, j, several, headline_message, start)) return false;
  }
  auto& done = run.e.stage(Stage::kTiming);
  done.status = StageStatus::kPassed;
  done.message = several
                     ? fmt::format("{}: {}; {} workloads timed, geometric-mean speedup {:.3f}x",
                                   run.jobs[run.headline].workload, headline_message, timed.size(),
                                   geometric_mean_speedup(run.e.workloads).value_or(0))
                     : headline_message;
  return true;
}

}  // namespace ptxbench::eval::gpu_pipeline
