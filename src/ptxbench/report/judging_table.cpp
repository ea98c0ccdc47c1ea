// What judging a run cost: GPU-seconds per verdict (from the stage records) and how often the
// compile and verdict caches answered (docs/reports.md, "Judging cost and caches").
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "ptxbench/report/stage_parts_summary.hpp"
#include "ptxbench/report/statistics.hpp"
#include "ptxbench/report/table_columns.hpp"
#include "ptxbench/report/tables.hpp"

namespace ptxbench::report {
using namespace columns;  // NOLINT(google-build-using-namespace): the table vocabulary

namespace {

struct JudgingTotals {
  std::int64_t verdicts = 0;
  std::int64_t gpu_verdicts = 0;    // GPU stages ran, or their verdict came from the cache
  std::vector<double> gpu_seconds;  // per verdict judged on a GPU (not cached)
  std::int64_t compiles = 0;        // compile stage ran (or was answered by the cache)
  std::int64_t compile_hits = 0;
  std::int64_t verdict_hits = 0;
  std::int64_t reference_trials = 0;  // trials the judge's reference cache was asked about
  std::int64_t reference_hits = 0;

  void add(const TurnRecord& turn) {
    ++verdicts;
    if (turn.compile_cached) {
      ++compiles;
      compile_hits += *turn.compile_cached ? 1 : 0;
    }
    if (!turn.gpu_seconds) return;
    ++gpu_verdicts;
    if (turn.verdict_cached) {
      ++verdict_hits;
    } else {
      // A cached verdict's counts are its original judge's: counted once, there.
      if (turn.reference_cache) {
        reference_hits += static_cast<std::int64_t>(turn.reference_cache->hits);
        reference_trials +=
            static_cast<std::int64_t>(turn.reference_cache->hits + turn.reference_cache->misses);
      }
      gpu_seconds.push_back(*turn.gpu_seconds);
    }
  }
};

Cell rate(std::int64_t k, std::int64_t n) {
  if (n == 0) return Cell();
  return static_cast<double>(k) / static_cast<double>(n);
}

Cell quantile(std::vector<double> values, double q) {
  if (values.empty()) return Cell();
  std::sort(values.begin(), values.end());
  return quantile_sorted(values, q);
}

}  // namespace

Table judging_table(const ReportData& data) {
  Table table{
      .name = "judging",
      .title = "Judging cost and caches",
      .description =
          "Per run, over every turn's verdict. gpu_seconds: the time verdicts held a GPU, from "
          "their stage records (sanitize runs beside correctness, so the longer of the two "
          "counts, then the probe and timing); a verdict from the verdict cache holds none. "
          "gpu_s_per_verdict divides it by every verdict, p50/p95 are over the verdicts judged on "
          "a GPU. Hit rates: compiles answered by the compile cache among the turns that "
          "compiled or failed to, verdicts answered by the verdict cache among those whose GPU "
          "stages ran, trials whose library and high-precision reference outputs the judge's "
          "reference "
          "cache answered among the trials it was asked about (--reference-cache). Empty: nothing "
          "to count.",
      .columns = with_key(
          integer("verdicts", "turns with a verdict"),
          integer("gpu_verdicts", "verdicts whose GPU stages ran or came from the cache"),
          number("gpu_hours", "total GPU time of the run's verdicts, hours", 3),
          number("gpu_s_per_verdict", "GPU-seconds per verdict (all verdicts)", 2),
          number("gpu_s_p50", "median GPU-seconds of a verdict judged on a GPU", 2),
          number("gpu_s_p95", "95th percentile GPU-seconds of a verdict judged on a GPU", 2),
          integer("compiles", "turns that ran the compile stage"),
          integer("compile_cache_hits", "compiles found in the compile cache"),
          number("compile_cache_hit_rate", "compile_cache_hits / compiles", 3),
          integer("verdict_cache_hits", "GPU verdicts found in the verdict cache"),
          number("verdict_cache_hit_rate", "verdict_cache_hits / gpu_verdicts", 3),
          integer("reference_trials", "judged trials that asked the reference cache"),
          integer("reference_cache_hits", "trials whose references came from the cache"),
          number("reference_cache_hit_rate", "reference_cache_hits / reference_trials", 3))};
  std::map<std::string, JudgingTotals> runs;
  for (const auto& trajectory : data.runs.trajectories) {
    auto& totals = runs[trajectory.run];
    for (const auto& turn : trajectory.turns) totals.add(turn);
  }
  for (const auto& [run, t] : runs) {
    double seconds = 0;
    for (double s : t.gpu_seconds) seconds += s;
    const GroupKey key{.run = run,
                       .model = std::string(kPooled),
                       .task = std::string(kPooled),
                       .arch = std::string(kPooled),
                       .context = std::string(kPooled),
                       .split = std::string(kPooled)};
    auto row = key_cells(key);
    append(row,
           {t.verdicts, t.gpu_verdicts, t.gpu_verdicts > 0 ? Cell(seconds / 3600) : Cell(),
            t.gpu_verdicts > 0 ? Cell(seconds / static_cast<double>(t.verdicts)) : Cell(),
            quantile(t.gpu_seconds, 0.5), quantile(t.gpu_seconds, 0.95), t.compiles, t.compile_hits,
            rate(t.compile_hits, t.compiles), t.verdict_hits, rate(t.verdict_hits, t.gpu_verdicts),
            t.reference_trials, t.reference_hits, rate(t.reference_hits, t.reference_trials)});
    table.add_row(std::move(row));
  }
  return table;
}

Table judging_parts_table(const ReportData& data) {
  Table table{
      .name = "judging_parts",
      .title = "Where the GPU time went",
      .description =
          "Per run, per GPU stage, over the verdicts whose stage ran on a GPU (cached verdicts "
          "left out): the stage's seconds (total), its process starts (processes), and each part "
          "of its time (docs/gpu-engine.md, \"Where the time goes\"): process start and exit, "
          "CUDA context, module load, inputs, candidate calls, library and high-precision "
          "references, comparison, copies, sanitizer tool, profiler, timed samples, waiting for "
          "the GPU. A verdict whose stage lacks a part counts 0 for it. Parts reported by a "
          "process that ran candidate code are that code's word.",
      .columns = {text("run", "the run the trajectories came from"), text("stage", "GPU stage"),
                  text("part", "part of the stage's time, or total / processes"),
                  integer("verdicts", "verdicts whose stage ran"),
                  number("p50", "median seconds (processes: count)", 3),
                  number("p95", "95th percentile seconds (processes: count)", 3),
                  number("mean", "mean seconds (processes: count)", 3)}};
  std::map<std::string, std::vector<std::vector<eval::StageRecord>>> runs;
  for (const auto& trajectory : data.runs.trajectories) {
    for (const auto& turn : trajectory.turns) {
      if (!turn.gpu_stage_costs.empty()) runs[trajectory.run].push_back(turn.gpu_stage_costs);
    }
  }
  for (const auto& [run, verdicts] : runs) {
    for (const auto& row : summarise_stage_parts(verdicts)) {
      table.add_row({run, row.stage, row.part, static_cast<std::int64_t>(row.verdicts), row.p50,
                     row.p95, row.mean});
    }
  }
  return table;
}

}  // namespace ptxbench::report
