#include "ptxbench/report/tables.hpp"

#include <fmt/format.h>

#include <set>

#include "ptxbench/report/table_columns.hpp"

namespace ptxbench::report {
using namespace columns;  // NOLINT(google-build-using-namespace): the table vocabulary

Table runs_table(const ReportData& data) {
  Table table{.name = "runs",
              .title = "Runs read",
              .description = "One row per run directory given to the report.",
              .columns = {text("run", "label of the run in every other table"),
                          text("directory", "the run directory"),
                          integer("files", "trajectory files found"),
                          integer("trajectories", "trajectory files read"),
                          text("models", "models in the run"),
                          text("context_levels", "context levels in the run")}};
  for (const auto& run : data.runs.runs) {
    std::set<std::string> models;
    std::set<std::string> contexts;
    for (const auto& t : data.runs.trajectories) {
      if (t.run != run.label) continue;
      models.insert(t.model);
      contexts.insert(t.context);
    }
    table.add_row({run.label, run.dir.string(), count(run.files), count(run.trajectories),
                   fmt::format("{}", fmt::join(models, ", ")),
                   fmt::format("{}", fmt::join(contexts, ", "))});
  }
  return table;
}

namespace {
// "Not measured" where no turn of the cell had its unseen workloads judged.
Measure unseen_measure(const MetricsAt& m) {
  Measure out = measure_of(m.correct_unseen, m.not_measured);
  if (m.unseen_judged == 0) out.absent = "not measured";
  return out;
}
}  // namespace

Table correctness_table(const ReportData& data) {
  Table table{
      .name = "correctness",
      .title = "Correctness and verification at turn limits",
      .description =
          "One row per run, model, task, arch and context level at each turn limit t. A trajectory "
          "counts once: success if any of its first t turns succeeded; one with fewer turns keeps "
          "its last state. Rates carry a 95% Wilson interval and k/n.",
      .columns = with_key(
          integer("t", "turn limit"), integer("n", "trajectories"),
          integer("not_measured",
                  "trajectories not correct within t turns whose GPU stages did not run "
                  "(NOT_RUN): left out of every rate but compiled"),
          integer("carried",
                  "trajectories counted with the state of their last judged turn: a later turn "
                  "within t compiled but its GPU stages did not run (NOT_RUN)"),
          integer("max_turns",
                  "largest turn budget the trajectories ran with (t beyond it adds nothing)"),
          measure("compiled", "share with a candidate that compiled within t turns"),
          measure("correct", "correct@t: share with a correct kernel within t turns"),
          measure("verified",
                  "verified@t (strict): share with a PASSED kernel within t turns: correct and "
                  "every requested family executed substantially"),
          measure("verified_any",
                  "share with a correct kernel in which any requested family executed, within t "
                  "turns (the original research's rule)"),
          measure("correct_unseen",
                  "correct on unseen shapes: share with a kernel within t turns correct on the "
                  "shown workloads and on every unseen one (docs/correctness.md); not measured "
                  "where no turn's unseen workloads were judged"),
          text("correctness_rule",
               "the rule(s) that decided correct (docs/correctness.md): as_accurate_as_library "
               "or matches_library (the original research's); several joined by +"))};
  for (const auto& [key, set] : data.cells) {
    std::set<std::string> rules;
    for (const auto* trajectory : set) {
      for (const auto& turn : trajectory->turns) {
        if (!turn.correctness_rule.empty()) rules.insert(turn.correctness_rule);
      }
    }
    const std::string rule = fmt::format("{}", fmt::join(rules, "+"));
    for (int t : data.turn_limits) {
      const auto& m = data.metrics(key, t);
      auto row = key_cells(key);
      append(row, {std::int64_t{t}, std::int64_t{m.trajectories}, std::int64_t{m.not_measured},
                   std::int64_t{m.carried}, std::int64_t{m.max_turns}, measure_of(m.compiled),
                   measure_of(m.correct, m.not_measured), measure_of(m.verified, m.not_measured),
                   measure_of(m.verified_any, m.not_measured), unseen_measure(m), rule});
      table.add_row(std::move(row));
    }
  }
  return table;
}

Table speedup_table(const ReportData& data) {
  Table table{
      .name = "speedup",
      .title = "Best speedup over the vendor baseline",
      .description =
          "Per trajectory, the best headline-workload speedup (baseline time / kernel time) among "
          "its correct turns within t; then over trajectories the maximum and the median with 95% "
          "percentile-bootstrap intervals (trajectories resampled). fast_p: share of all "
          "trajectories with a correct kernel faster than p times the baseline. "
          "speed_of_light: beside the speedup, the median over trajectories of the best "
          "fraction of the analytic bound reached (FLOPs at the dense BF16 peak at the measured "
          "clock, or bytes at the HBM bandwidth, over the kernel's time; 1 = at the bound).",
      .columns = with_key(integer("t", "turn limit"), integer("n", "trajectories"),
                          integer("timed", "trajectories with a correct, timed kernel"),
                          measure("best", "largest best speedup over trajectories", 3),
                          measure("median", "median best speedup over trajectories with one", 3),
                          measure("speed_of_light",
                                  "median best fraction of the speed of light (analytic bound / "
                                  "kernel time) over trajectories with one",
                                  3))};
  for (double p : kFastThresholds) {
    table.columns.push_back(
        measure(threshold_name(p),
                fmt::format("share of trajectories with a correct kernel at speedup > {}", p)));
  }
  for (const auto& [key, set] : data.cells) {
    for (int t : data.turn_limits) {
      const auto& m = data.metrics(key, t);
      auto row = key_cells(key);
      auto speedup = [&m](const Estimate& estimate) {
        Measure out = measure_of(estimate);
        if (!out.value && m.correct.n == 0 && m.not_measured > 0) out.absent = "not measured";
        return out;
      };
      Measure bound = measure_of(m.median_speed_of_light);
      if (!bound.value) bound.absent = "not measured";
      append(row, {std::int64_t{t}, std::int64_t{m.trajectories}, count(m.best_speedups.size()),
                   speedup(m.max_speedup), speedup(m.median_speedup), bound});
      for (const auto& f : m.fast) row.push_back(measure_of(f, m.not_measured));
      table.add_row(std::move(row));
    }
  }
  return table;
}

Table splits_table(const ReportData& data) {
  Table table{
      .name = "splits",
      .title = "Training distribution and held-out split",
      .description =
          "Trajectories pooled over the tasks of each split (task = all): the held-out split holds "
          "sizes and variants kept out of training, so a gain that holds there generalises.",
      .columns = with_key(integer("t", "turn limit"), integer("tasks", "tasks pooled"),
                          integer("n", "trajectories"), measure("correct", "correct@t"),
                          measure("verified", "verified@t (strict)"),
                          measure("verified_any", "correct with any requested family executed"),
                          measure("median_speedup", "median best speedup", 3))};
  for (const auto& [key, set] : data.splits) {
    std::set<std::string> tasks;
    for (const auto* t : set) tasks.insert(t->task);
    for (int t : data.turn_limits) {
      const auto& m = data.metrics(key, t);
      auto row = key_cells(key);
      append(row, {std::int64_t{t}, count(tasks.size()), std::int64_t{m.trajectories},
                   measure_of(m.correct, m.not_measured), measure_of(m.verified, m.not_measured),
                   measure_of(m.verified_any, m.not_measured), measure_of(m.median_speedup)});
      table.add_row(std::move(row));
    }
  }
  return table;
}

Table trajectory_states_table(const ReportData& data) {
  Table table{
      .name = "trajectory_states",
      .title = "Every trajectory at every turn limit",
      .description = "The per-trajectory values the rates and speedup distributions are made of.",
      .columns =
          with_key(text("trajectory", "trajectory id"), integer("sample", "sample index"),
                   integer("turns", "turns recorded"), text("status", "info.status"),
                   text("exit_status", "info.exit_status"), integer("t", "turn limit"),
                   integer("compiled", "1 if a candidate compiled within t turns"),
                   integer("correct", "1 if correct within t turns"),
                   integer("verified", "1 if PASSED within t turns"),
                   integer("verified_any", "1 if correct with any requested family executed"),
                   number("best_speedup", "best speedup of a correct turn within t", 4),
                   number("speed_of_light",
                          "best fraction of the speed of light of a correct turn within t "
                          "(empty: not measured)",
                          4)),
      .on_page = false};
  for (const auto& [key, set] : data.cells) {
    for (const auto* trajectory : set) {
      for (int t : data.turn_limits) {
        const auto s = state_within(*trajectory, t);
        auto row = key_cells(key);
        append(row, {trajectory->id, std::int64_t{trajectory->sample},
                     count(trajectory->turns.size()), trajectory->status, trajectory->exit_status,
                     std::int64_t{t}, std::int64_t{s.compiled}, std::int64_t{s.correct},
                     std::int64_t{s.verified}, std::int64_t{s.verified_any},
                     optional_number(s.best_speedup), optional_number(s.best_speed_of_light)});
        table.add_row(std::move(row));
      }
    }
  }
  return table;
}

std::vector<Table> build_tables(const ReportData& data) {
  std::vector<Table> tables;
  tables.push_back(runs_table(data));
  tables.push_back(correctness_table(data));
  tables.push_back(speedup_table(data));
  tables.push_back(splits_table(data));
  if (!data.comparisons.empty()) tables.push_back(comparison_table(data));
  tables.push_back(error_taxonomy_table(data));
  tables.push_back(compile_errors_table(data));
  tables.push_back(usage_by_turn_table(data));
  tables.push_back(usage_totals_table(data));
  tables.push_back(judging_table(data));
  tables.push_back(judging_parts_table(data));
  if (!data.published.empty()) {
    tables.push_back(published_side_by_side_table(data));
    tables.push_back(published_table(data));
  }
  tables.push_back(trajectory_states_table(data));
  return tables;
}

}  // namespace ptxbench::report
