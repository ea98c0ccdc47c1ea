#include "ptxbench/report/tables.hpp"

#include <fmt/format.h>

#include <set>

namespace ptxbench::report {
namespace {

Column text(std::string name, std::string description) {
  return {
      .name = std::move(name), .kind = ColumnKind::kText, .description = std::move(description)};
}
Column integer(std::string name, std::string description) {
  return {
      .name = std::move(name), .kind = ColumnKind::kInteger, .description = std::move(description)};
}
Column number(std::string name, std::string description, int decimals = 2) {
  return {.name = std::move(name),
          .kind = ColumnKind::kNumber,
          .description = std::move(description),
          .decimals = decimals};
}
Column measure(std::string name, std::string description, int decimals = 2) {
  return {.name = std::move(name),
          .kind = ColumnKind::kMeasure,
          .description = std::move(description),
          .decimals = decimals};
}

std::vector<Column> key_columns() {
  return {text("run", "the run the trajectories came from"),
          text("model", "model name as the run recorded it"),
          text("task", "task name; 'all' pools the tasks of the split"),
          text("arch", "target architecture"),
          text("context", "context level of the system prompt"),
          text("split", "train or heldout (sizes and variants kept out of training)")};
}

std::string split_name(const std::string& split) {
  return split.empty() ? "unknown" : split;
}

std::vector<Cell> key_cells(const GroupKey& key) {
  return {key.run, key.model, key.task, key.arch, key.context, split_name(key.split)};
}

template <class... Columns>
std::vector<Column> with_key(Columns... columns) {
  auto all = key_columns();
  (all.push_back(std::move(columns)), ...);
  return all;
}

void append(std::vector<Cell>& row, std::initializer_list<Cell> cells) {
  row.insert(row.end(), cells.begin(), cells.end());
}

Cell optional_number(std::optional<double> value) {
  if (!value) return std::monostate{};
  return *value;
}

std::int64_t count(std::size_t n) {
  return static_cast<std::int64_t>(n);
}

std::string threshold_name(double p) {
  std::string s = fmt::format("{}", p);
  for (auto& c : s) {
    if (c == '.') c = '_';
  }
  return "fast_" + s;
}

}  // namespace

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
          integer("max_turns",
                  "largest turn budget the trajectories ran with (t beyond it adds nothing)"),
          measure("compiled", "share with a candidate that compiled within t turns"),
          measure("correct", "correct@t: share with a correct kernel within t turns"),
          measure("verified",
                  "verified@t (strict): share with a PASSED kernel within t turns: correct and "
                  "every requested family executed substantially"),
          measure("verified_any",
                  "share with a correct kernel in which any requested family executed, within t "
                  "turns (the original research's rule)"))};
  for (const auto& [key, set] : data.cells) {
    for (int t : data.turn_limits) {
      const auto& m = data.metrics(key, t);
      auto row = key_cells(key);
      append(row, {std::int64_t{t}, std::int64_t{m.trajectories}, std::int64_t{m.max_turns},
                   measure_of(m.compiled), measure_of(m.correct), measure_of(m.verified),
                   measure_of(m.verified_any)});
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
          "trajectories with a correct kernel faster than p times the baseline.",
      .columns = with_key(integer("t", "turn limit"), integer("n", "trajectories"),
                          integer("timed", "trajectories with a correct, timed kernel"),
                          measure("best", "largest best speedup over trajectories", 3),
                          measure("median", "median best speedup over trajectories with one", 3))};
  for (double p : kFastThresholds) {
    table.columns.push_back(
        measure(threshold_name(p),
                fmt::format("share of trajectories with a correct kernel at speedup > {}", p)));
  }
  for (const auto& [key, set] : data.cells) {
    for (int t : data.turn_limits) {
      const auto& m = data.metrics(key, t);
      auto row = key_cells(key);
      append(row, {std::int64_t{t}, std::int64_t{m.trajectories}, count(m.best_speedups.size()),
                   measure_of(m.max_speedup), measure_of(m.median_speedup)});
      for (const auto& f : m.fast) row.push_back(measure_of(f));
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
                   measure_of(m.correct), measure_of(m.verified), measure_of(m.verified_any),
                   measure_of(m.median_speedup)});
      table.add_row(std::move(row));
    }
  }
  return table;
}

Table error_taxonomy_table(const ReportData& data) {
  Table table{
      .name = "error_taxonomy",
      .title = "Error taxonomy per turn",
      .description =
          "How each turn ended, counted over the trajectories of a cell. NO_TURN: the trajectory "
          "had ended before this turn (a target reached or a provider failure). NOT_RUN means the "
          "GPU stages did not run and is never counted as a pass.",
      .columns = with_key(integer("turn", "turn number"), integer("n", "trajectories"))};
  for (const auto& outcome : kOutcomes) {
    table.columns.push_back(
        integer(std::string(outcome_name(outcome)), std::string(outcome_meaning(outcome))));
  }
  for (const auto& [key, set] : data.cells) {
    const int last = last_turn(set);
    for (int turn = 1; turn <= last; ++turn) {
      const auto b = breakdown_at_turn(set, turn, data.prices);
      auto row = key_cells(key);
      append(row, {std::int64_t{turn}, std::int64_t{b.trajectories}});
      for (int c : b.outcomes) row.emplace_back(std::in_place_type<std::int64_t>, c);
      table.add_row(std::move(row));
    }
  }
  return table;
}

Table compile_errors_table(const ReportData& data) {
  Table table{.name = "compile_errors",
              .title = "Compile errors by kind",
              .description =
                  "Turns that ended in COMPILE_ERROR, by the kind of the first error "
                  "line of the compiler output, over all turns of a cell.",
              .columns = with_key(integer("compile_errors", "turns with a compile error"))};
  for (auto kind : kAllCompileErrorKinds) {
    table.columns.push_back(
        integer(std::string(to_string(kind)), "turns whose first error is of this kind"));
  }
  for (const auto& [key, set] : data.cells) {
    std::array<int, std::size(kAllCompileErrorKinds)> kinds{};
    int total = 0;
    for (const auto* t : set) {
      for (const auto& turn : t->turns) {
        if (!turn.compile_error) continue;
        ++kinds[compile_error_index(*turn.compile_error)];
        ++total;
      }
    }
    auto row = key_cells(key);
    row.push_back(std::int64_t{total});
    for (int k : kinds) row.emplace_back(std::in_place_type<std::int64_t>, k);
    table.add_row(std::move(row));
  }
  return table;
}

Table usage_by_turn_table(const ReportData& data) {
  Table table{.name = "usage_by_turn",
              .title = "Tokens, latency and cost per turn",
              .description =
                  "Means over the trajectories that reached the turn. Cost is the recorded cost "
                  "of the turn, else its tokens at the configured prices; empty without either.",
              .columns = with_key(
                  integer("turn", "turn number"), integer("turns", "trajectories with this turn"),
                  measure("compile_rate", "share of these turns whose candidate compiled"),
                  number("prompt_tokens", "mean prompt tokens", 0),
                  number("completion_tokens", "mean completion tokens (reasoning included)", 0),
                  number("reasoning_tokens", "mean reasoning tokens", 0),
                  number("latency_s", "mean model latency, seconds", 1),
                  number("latency_median_s", "median model latency, seconds", 1),
                  number("cost_usd", "mean cost of the turn, US dollars", 4))};
  for (const auto& [key, set] : data.cells) {
    const int last = last_turn(set);
    for (int turn = 1; turn <= last; ++turn) {
      const auto b = breakdown_at_turn(set, turn, data.prices);
      if (b.turns == 0) continue;
      auto row = key_cells(key);
      append(
          row,
          {std::int64_t{turn}, std::int64_t{b.turns},
           measure_of(Proportion{.k = b.compiled, .n = b.turns}),
           optional_number(b.prompt_tokens.value()), optional_number(b.completion_tokens.value()),
           optional_number(b.reasoning_tokens.value()), optional_number(b.latency_s.value()),
           optional_number(median(b.latencies_s)), optional_number(b.cost_usd.value())});
      table.add_row(std::move(row));
    }
  }
  return table;
}

Table usage_totals_table(const ReportData& data) {
  const int t = data.last_turn_limit();
  Table table{
      .name = "usage_totals",
      .title = "Total tokens, time and cost",
      .description = fmt::format(
          "Sums over every turn of a cell. cost_per_correct divides the total cost by the "
          "trajectories correct within {} turns.",
          t),
      .columns = with_key(integer("n", "trajectories"), integer("turns", "turns"),
                          integer("prompt_tokens", "total prompt tokens"),
                          integer("completion_tokens", "total completion tokens"),
                          integer("reasoning_tokens", "total reasoning tokens"),
                          number("latency_h", "total model latency, hours", 2),
                          number("cost_usd", "total cost, US dollars (turns with a known cost)", 2),
                          number("cost_per_correct_usd", "total cost / correct trajectories", 2))};
  for (const auto& [key, set] : data.cells) {
    std::int64_t turns = 0;
    std::int64_t prompt = 0;
    std::int64_t completion = 0;
    std::int64_t reasoning = 0;
    double latency = 0;
    Mean cost;
    for (const auto* trajectory : set) {
      for (const auto& turn : trajectory->turns) {
        ++turns;
        prompt += turn.prompt_tokens.value_or(0);
        completion += turn.completion_tokens.value_or(0);
        reasoning += turn.reasoning_tokens.value_or(0);
        latency += turn.latency_s.value_or(0);
        cost.add(data.prices.cost(trajectory->model, turn));
      }
    }
    const int correct = data.metrics(key, t).correct.k;
    Cell total_cost = cost.n > 0 ? Cell(cost.sum) : Cell();
    Cell per_correct = cost.n > 0 && correct > 0 ? Cell(cost.sum / correct) : Cell();
    auto row = key_cells(key);
    append(row, {count(set.size()), turns, prompt, completion, reasoning, latency / 3600,
                 total_cost, per_correct});
    table.add_row(std::move(row));
  }
  return table;
}

Table comparison_table(const ReportData& data) {
  Table table{
      .name = "comparison",
      .title = "Comparisons",
      .description =
          "Side B minus side A for cells that agree on everything but the compared dimension "
          "(task = all pools the matched tasks of a split). Rates: Newcombe's hybrid score "
          "interval; median speedup: percentile bootstrap, both sides resampled independently.",
      .columns = {text("comparison", "as given to --compare"),
                  text("dimension", "what differs between A and B"),
                  text("run", "run (or 'A | B' when each side holds one)"),
                  text("model", "model (or 'A | B')"), text("task", "task; 'all' pools"),
                  text("arch", "architecture"), text("context", "context level (or 'A → B')"),
                  text("split", "split"), integer("t", "turn limit"),
                  text("metric", "what is compared"), measure("a", "side A"),
                  measure("b", "side B"), measure("difference", "B − A with its 95% interval")}};
  for (const auto& comparison : data.comparisons) {
    for (const auto& pair : comparison.pairs) {
      auto base = std::vector<Cell>{comparison.spec.text,
                                    std::string(to_string(comparison.dimension)),
                                    pair.key.run,
                                    pair.key.model,
                                    pair.key.task,
                                    pair.key.arch,
                                    pair.key.context,
                                    split_name(pair.key.split),
                                    std::int64_t{pair.a.turn_limit}};
      const int n = pair.a.trajectories + pair.b.trajectories;
      auto add = [&](std::string metric, Measure a, Measure b, Measure d) {
        auto row = base;
        append(row, {std::move(metric), a, b, d});
        table.add_row(std::move(row));
      };
      const auto t = pair.a.turn_limit;
      add(fmt::format("correct@{}", t), measure_of(pair.a.correct), measure_of(pair.b.correct),
          measure_of(pair.correct, n));
      add(fmt::format("verified@{}", t), measure_of(pair.a.verified), measure_of(pair.b.verified),
          measure_of(pair.verified, n));
      add(fmt::format("verified_any@{}", t), measure_of(pair.a.verified_any),
          measure_of(pair.b.verified_any), measure_of(pair.verified_any, n));
      add(fmt::format("median_speedup@{}", t), measure_of(pair.a.median_speedup),
          measure_of(pair.b.median_speedup), measure_of(pair.median_speedup));
    }
  }
  return table;
}

namespace {
std::vector<Column> published_columns() {
  return {text("source", "ptxbench (this report) or published (the original research)"),
          text("model", "model"),
          text("run", "our run, or the published experiment (last part of its exp_dir)"),
          text("task", "task, in our names"),
          text("arch", "architecture"),
          text("context", "context level (published: not recorded)"),
          integer("t", "turn limit"),
          integer("n", "trajectories"),
          measure("correct", "correct@t"),
          measure("verified_any",
                  "correct and any requested family executed (published: correct_with_arch)"),
          number("best_speedup", "largest best speedup over trajectories", 3)};
}

Measure published_rate(std::optional<int> k, int n) {
  if (!k) return Measure{.n = n};
  return measure_of(Proportion{.k = *k, .n = n});
}

void add_published_row(Table& table, const PublishedRow& row) {
  table.add_row({std::string("published"), row.model, row.experiment, row.task, row.arch,
                 std::string(), std::int64_t{row.turn_limit}, std::int64_t{row.trajectories},
                 published_rate(row.correct, row.trajectories),
                 published_rate(row.correct_with_arch, row.trajectories),
                 optional_number(row.best_speedup)});
}
}  // namespace

Table published_table(const ReportData& data) {
  Table table{
      .name = "published",
      .title = "Published results (all rows read)",
      .description = "The original research's aggregates as read, task names mapped to ours.",
      .columns = published_columns(),
      .on_page = false};
  for (const auto& row : data.published) add_published_row(table, row);
  return table;
}

Table published_side_by_side_table(const ReportData& data) {
  Table table{
      .name = "published_side_by_side",
      .title = "Beside the published results",
      .description =
          "For each task, arch and turn limit that both this report and the published results "
          "cover: our cells, then the published rows. The published arch rule (correct_with_arch) "
          "accepts any requested family executed, so it sits beside our verified_any.",
      .columns = published_columns()};
  std::set<std::tuple<std::string, std::string, int>> ours;
  for (const auto& [key, set] : data.cells) {
    for (int t : data.turn_limits) ours.emplace(key.task, key.arch, t);
  }
  std::set<std::tuple<std::string, std::string, int>> covered;
  for (const auto& row : data.published) {
    if (ours.contains({row.task, row.arch, row.turn_limit}))
      covered.emplace(row.task, row.arch, row.turn_limit);
  }
  for (const auto& [task, arch, t] : covered) {
    for (const auto& [key, set] : data.cells) {
      if (key.task != task || key.arch != arch) continue;
      const auto& m = data.metrics(key, t);
      table.add_row({std::string("ptxbench"), key.model, key.run, key.task, key.arch, key.context,
                     std::int64_t{t}, std::int64_t{m.trajectories}, measure_of(m.correct),
                     measure_of(m.verified_any), optional_number(m.max_speedup.value)});
    }
    for (const auto& row : data.published) {
      if (row.task == task && row.arch == arch && row.turn_limit == t)
        add_published_row(table, row);
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
                   number("best_speedup", "best speedup of a correct turn within t", 4)),
      .on_page = false};
  for (const auto& [key, set] : data.cells) {
    for (const auto* trajectory : set) {
      for (int t : data.turn_limits) {
        const auto s = state_within(*trajectory, t);
        auto row = key_cells(key);
        append(row,
               {trajectory->id, std::int64_t{trajectory->sample}, count(trajectory->turns.size()),
                trajectory->status, trajectory->exit_status, std::int64_t{t},
                std::int64_t{s.compiled}, std::int64_t{s.correct}, std::int64_t{s.verified},
                std::int64_t{s.verified_any}, optional_number(s.best_speedup)});
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
  if (!data.published.empty()) {
    tables.push_back(published_side_by_side_table(data));
    tables.push_back(published_table(data));
  }
  tables.push_back(trajectory_states_table(data));
  return tables;
}

}  // namespace ptxbench::report
