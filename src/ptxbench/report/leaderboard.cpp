#include "ptxbench/report/leaderboard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "ptxbench/report/like_for_like.hpp"
#include "ptxbench/report/svg.hpp"
#include "ptxbench/report/table_columns.hpp"
#include "ptxbench/report/view/view_html.hpp"
#include "ptxbench/report/view/viewer.hpp"

namespace ptxbench::report {
using namespace columns;  // NOLINT(google-build-using-namespace): the table vocabulary

namespace {

// Published rows of one model and arch pooled over tasks at one turn limit.
struct PublishedPool {
  std::set<std::string> tasks;
  int n = 0;
  std::optional<int> correct;
  std::optional<int> correct_with_arch;
  std::optional<double> best_speedup;
};

void add(std::optional<int>& sum, std::optional<int> value) {
  if (value) sum = sum.value_or(0) + *value;
}

Measure published_measure(std::optional<int> k, int n) {
  if (!k) return Measure{.n = n};
  return measure_of(Proportion{.k = *k, .n = n});
}

}  // namespace

Table leaderboard_table(const ReportData& data) {
  Table table{
      .name = "leaderboard",
      .title = "Leaderboard",
      .description =
          "One row per run, model, arch and context level, tasks and splits pooled; beside them "
          "the published PTXBench results pooled the same way (per model and arch). Rates carry "
          "a 95% Wilson interval and k/n; speedups are at the last turn limit.",
      .columns = {
          text("source", "ptxbench (this report) or published"), text("model", "model"),
          text("run", "our run, or 'published'"), text("arch", "architecture"),
          text("context", "context level (published: not recorded)"),
          text("like_for_like", "whether the first prompt is the size of the published prompts"),
          integer("tasks", "tasks pooled"), integer("n", "trajectories")}};
  for (int t : data.turn_limits) {
    table.columns.push_back(measure(fmt::format("correct@{}", t), "correct within t turns"));
    table.columns.push_back(
        measure(fmt::format("verified@{}", t), "PASSED within t turns (strict)"));
    table.columns.push_back(measure(fmt::format("verified_any@{}", t),
                                    "correct with any requested family executed within t "
                                    "(published: correct_with_arch)"));
  }
  const int last = data.last_turn_limit();
  table.columns.push_back(
      measure(fmt::format("best_speedup@{}", last), "largest best speedup over trajectories", 3));
  table.columns.push_back(measure(fmt::format("median_speedup@{}", last),
                                  "median best speedup over trajectories with one", 3));
  table.columns.push_back(measure(fmt::format("fast_1@{}", last),
                                  "share with a correct kernel faster than the baseline"));

  for (const auto& [key, set] : data.series) {
    std::set<std::string> tasks;
    for (const auto* t : set) tasks.insert(t->task);
    std::vector<Cell> row{std::string("ptxbench"),
                          key.model,
                          key.run,
                          key.arch,
                          key.context,
                          like_for_like(median_first_prompt_tokens(set)),
                          count(tasks.size()),
                          count(set.size())};
    for (int t : data.turn_limits) {
      const auto& m = data.metrics(key, t);
      append(row, {measure_of(m.correct, m.not_measured), measure_of(m.verified, m.not_measured),
                   measure_of(m.verified_any, m.not_measured)});
    }
    const auto& m = data.metrics(key, last);
    const auto fast_1 = static_cast<std::size_t>(
        std::find(kFastThresholds.begin(), kFastThresholds.end(), 1.0) - kFastThresholds.begin());
    append(row, {measure_of(m.max_speedup), measure_of(m.median_speedup),
                 measure_of(m.fast[fast_1], m.not_measured)});
    table.add_row(std::move(row));
  }

  std::map<std::tuple<std::string, std::string, int>, PublishedPool> pools;
  for (const auto& p : data.published) {
    auto& pool = pools[{p.model, p.arch, p.turn_limit}];
    pool.tasks.insert(p.task);
    pool.n += p.trajectories;
    add(pool.correct, p.correct);
    add(pool.correct_with_arch, p.correct_with_arch);
    if (p.best_speedup)
      pool.best_speedup = std::max(pool.best_speedup.value_or(0), *p.best_speedup);
  }
  std::set<std::pair<std::string, std::string>> published_models;
  for (const auto& [k, pool] : pools) published_models.emplace(std::get<0>(k), std::get<1>(k));
  for (const auto& [model, arch] : published_models) {
    int n = 0;
    std::set<std::string> tasks;
    std::vector<Cell> measures;
    for (int t : data.turn_limits) {
      const auto found = pools.find({model, arch, t});
      if (found == pools.end()) {
        append(measures, {Cell(), Cell(), Cell()});
        continue;
      }
      const auto& pool = found->second;
      n = std::max(n, pool.n);
      tasks.insert(pool.tasks.begin(), pool.tasks.end());
      append(measures, {published_measure(pool.correct, pool.n), Cell(),
                        published_measure(pool.correct_with_arch, pool.n)});
    }
    const auto at_last = pools.find({model, arch, last});
    Cell best;
    if (at_last != pools.end() && at_last->second.best_speedup) {
      best = Measure{.value = at_last->second.best_speedup, .n = at_last->second.n};
    }
    std::vector<Cell> row{
        std::string("published"),
        model,
        std::string("published"),
        arch,
        std::string(),
        fmt::format("published prompts: {:.0f}–{:.0f}k tokens", kPublishedPromptTokensLow / 1000,
                    kPublishedPromptTokensHigh / 1000),
        count(tasks.size()),
        std::int64_t{n}};
    row.insert(row.end(), measures.begin(), measures.end());
    append(row, {best, Cell(), Cell()});
    table.add_row(std::move(row));
  }
  return table;
}

namespace {

// Click a header to sort by it (numbers by their leading value, "–" last); click again to
// reverse. Cells are only moved, never re-parsed as HTML.
constexpr std::string_view kSortScript = R"js("use strict";
(function () {
  const table = document.querySelector("#leaderboard table");
  if (!table) return;
  const body = table.tBodies[0];
  const key = (row, i) => {
    const text = row.cells[i].textContent.trim();
    const number = parseFloat(text);
    return Number.isNaN(number) ? text : number;
  };
  table.querySelectorAll("th").forEach((th, i) => {
    th.classList.add("sortable");
    th.addEventListener("click", () => {
      const descending = th.dataset.order !== "desc";
      table.querySelectorAll("th").forEach(h => delete h.dataset.order);
      th.dataset.order = descending ? "desc" : "asc";
      const rows = [...body.rows];
      rows.sort((a, b) => {
        const x = key(a, i), y = key(b, i);
        const xn = typeof x === "number", yn = typeof y === "number";
        if (xn !== yn) return xn ? -1 : 1;
        const c = xn ? x - y : String(x).localeCompare(String(y));
        return descending ? -c : c;
      });
      rows.forEach(r => body.appendChild(r));
    });
  });
})();
)js";

}  // namespace

std::string leaderboard_html(const Table& leaderboard, std::string_view facts) {
  auto link = [&leaderboard](std::size_t r, std::size_t /*column*/) -> std::string {
    const auto& row = leaderboard.rows[r];
    auto text = [&row](std::size_t i) { return row[i].text() ? *row[i].text() : std::string(); };
    if (text(0) != "ptxbench") return {};
    return view::index_link({{"kind", "trajectory"},
                             {"model", text(1)},
                             {"run", text(2)},
                             {"arch", text(3)},
                             {"context", text(4)}});
  };
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>ptxbench leaderboard</title>\n<style>{}\ntd .v, td .ci, td .n {{ white-space: "
      "nowrap; }} .ci, .n {{ color: #777; font-size: 11px; }} a.cell {{ color: inherit; "
      "text-decoration: none; display: block; }} a.cell:hover {{ background: #e8f1fb; }}"
      "</style>\n</head>\n<body>\n<main>\n"
      "<p class=\"back\"><a href=\"report.html\">&larr; report</a> · <a href=\"{}\">trajectory "
      "viewer</a></p>\n<h1>Leaderboard</h1>\n<p class=\"facts\">{}</p>\n<p class=\"facts\">{}"
      "</p>\n<p class=\"facts\">Click a header to sort; click one of our rows for its "
      "trajectories. A published row is like for like only beside a context level whose prompt "
      "is the size of the published prompts (docs/reports.md).</p>\n<div id=\"leaderboard\">{}"
      "</div>\n<script>{}</script>\n</main>\n</body>\n</html>\n",
      view::style(), view::index_link({}), xml_escape(facts), xml_escape(leaderboard.description),
      to_html(leaderboard, link), kSortScript);
}

}  // namespace ptxbench::report
