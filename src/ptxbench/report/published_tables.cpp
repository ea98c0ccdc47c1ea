// Tables that set two things side by side: comparisons, and our cells beside published rows.
#include <fmt/format.h>

#include <set>
#include <tuple>

#include "ptxbench/report/like_for_like.hpp"
#include "ptxbench/report/table_columns.hpp"
#include "ptxbench/report/tables.hpp"

namespace ptxbench::report {
using namespace columns;  // NOLINT(google-build-using-namespace): the table vocabulary

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
          number("best_speedup", "largest best speedup over trajectories", 3),
          text("like_for_like",
               "ours: whether the cell's first prompt (median provider-counted tokens) is the "
               "size of the published prompts (22-31k tokens); published: whether any of our "
               "cells beside it is")};
}

Measure published_rate(std::optional<int> k, int n) {
  if (!k) return Measure{.n = n};
  return measure_of(Proportion{.k = *k, .n = n});
}

void add_published_row(Table& table, const PublishedRow& row, std::string like = {}) {
  table.add_row({std::string("published"), row.model, row.experiment, row.task, row.arch,
                 std::string(), std::int64_t{row.turn_limit}, std::int64_t{row.trajectories},
                 published_rate(row.correct, row.trajectories),
                 published_rate(row.correct_with_arch, row.trajectories),
                 optional_number(row.best_speedup), std::move(like)});
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
    bool any_like = false;
    std::set<std::string> unlike;  // our contexts beside it that are not like for like
    for (const auto& [key, set] : data.cells) {
      if (key.task != task || key.arch != arch) continue;
      const auto& m = data.metrics(key, t);
      const auto tokens = median_first_prompt_tokens(set);
      any_like = any_like || is_like_for_like(tokens);
      if (!is_like_for_like(tokens)) unlike.insert(key.context);
      table.add_row({std::string("ptxbench"), key.model, key.run, key.task, key.arch, key.context,
                     std::int64_t{t}, std::int64_t{m.trajectories}, measure_of(m.correct),
                     measure_of(m.verified_any), optional_number(m.max_speedup.value),
                     like_for_like(tokens)});
    }
    const std::string like =
        any_like ? std::string("yes")
                 : fmt::format("no: not like for like with ours ({})", fmt::join(unlike, ", "));
    for (const auto& row : data.published) {
      if (row.task == task && row.arch == arch && row.turn_limit == t)
        add_published_row(table, row, like);
    }
  }
  return table;
}

}  // namespace ptxbench::report
