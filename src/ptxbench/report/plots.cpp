#include "ptxbench/report/plots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>
#include <utility>

#include "ptxbench/report/charts.hpp"

namespace ptxbench::report {
namespace {

constexpr std::string_view kNotMeasuredWhy =
    "no GPU stage ran (every verdict NOT_RUN): correctness and speed were not measured";

// The series of a cell (run, model, context and arch as they vary): one colour and marker each.
class SeriesStyles {
 public:
  explicit SeriesStyles(const ReportData& data) : varying_(data.varying) {
    for (const auto& [key, set] : data.series) {
      auto name = label(key);
      if (std::find(labels_.begin(), labels_.end(), name) == labels_.end()) labels_.push_back(name);
    }
  }
  std::string label(const GroupKey& key) const {
    GroupKey series = key;
    series.arch = kPooled;  // arch has its own plots; colours should not change with it
    return series_label(series, varying_);
  }
  SeriesStyle style(const GroupKey& key) const {
    const auto it = std::find(labels_.begin(), labels_.end(), label(key));
    return series_style(static_cast<std::size_t>(it - labels_.begin()));
  }

 private:
  VaryingLabels varying_;
  std::vector<std::string> labels_;
};

std::string slug(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      out += static_cast<char>(std::tolower(u));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string unique_id(std::set<std::string>& used, std::string id) {
  std::string candidate = id;
  for (int i = 2; !used.insert(candidate).second; ++i) candidate = fmt::format("{}-{}", id, i);
  return candidate;
}

// correct@t and verified@t (strict) side by side for every series of one task (or of one
// split, pooled) on one arch, each with its 95% Wilson band.
Plot curve_plot(const SeriesStyles& styles, const std::map<GroupKey, TrajectorySet>& groups,
                std::string_view task, std::string_view arch, std::string_view split,
                std::string id) {
  auto selected = [&](const GroupKey& key) {
    return key.task == task && key.arch == arch && key.split == split;
  };
  LineChart chart{.x_label = "turn limit t"};
  LinePanel correct{.title = "correct@t", .y_label = "share of trajectories"};
  LinePanel verified{.title = "verified@t (strict)", .y_label = "share of trajectories"};
  int n_min = std::numeric_limits<int>::max();
  int n_max = 0;
  int last = 1;
  for (const auto& [key, set] : groups) {
    if (selected(key)) last = std::max(last, last_turn(set));
  }
  const BootstrapSettings no_bootstrap{.resamples = 0};
  bool measured = false;
  for (const auto& [key, set] : groups) {
    if (!selected(key)) continue;
    n_min = std::min(n_min, static_cast<int>(set.size()));
    n_max = std::max(n_max, static_cast<int>(set.size()));
    const auto style = styles.style(key);
    const auto label = styles.label(key);
    LineSeries c{.label = label + " correct", .style = style};
    LineSeries v{.label = label + " verified", .style = style};
    // A turn limit at which no trajectory's correctness was measured has no point, not a 0.
    for (int t = 1; t <= last; ++t) {
      const auto m = metrics_at(set, t, no_bootstrap);
      if (!m.correct.rate()) continue;
      measured = true;
      c.x.push_back(t);
      v.x.push_back(t);
      c.y.push_back(*m.correct.rate());
      c.band.push_back(m.correct.interval());
      v.y.push_back(m.verified.rate().value_or(0));
      v.band.push_back(m.verified.interval());
    }
    correct.series.push_back(std::move(c));
    verified.series.push_back(std::move(v));
    chart.legend.push_back(LegendItem{.label = label, .style = style});
  }
  chart.x_max = last;
  chart.panels = {std::move(correct), std::move(verified)};
  const std::string what =
      task == kPooled ? fmt::format("all {} tasks", split.empty() ? "unknown-split" : split)
                      : std::string(task);
  const std::string n =
      n_min == n_max ? fmt::format("n = {}", n_max) : fmt::format("n = {}-{}", n_min, n_max);
  chart.text = {
      .id = std::move(id),
      .title = fmt::format("Correct and verified within t turns: {} on {}", what, arch),
      .subtitle = fmt::format("{} trajectories per series; bands: 95% Wilson intervals", n),
      .empty = measured ? "" : std::string(kNotMeasuredWhy)};
  return {.id = chart.text.id,
          .section = PlotSection::kCurves,
          .title = chart.text.title,
          .svg = render(chart),
          .empty = chart.text.empty};
}

Plot speedup_plot(const ReportData& data, const SeriesStyles& styles, std::string_view arch,
                  std::string id) {
  const int t = data.last_turn_limit();
  BoxStripChart chart{.y_label = "best speedup vs vendor library (log)"};
  bool timed = false;
  bool measured_any = false;
  std::set<std::string> legend_seen;
  for (const auto& [key, set] : data.cells) {
    if (key.arch != arch) continue;
    auto group = std::find(chart.groups.begin(), chart.groups.end(), key.task);
    if (group == chart.groups.end()) group = chart.groups.insert(chart.groups.end(), key.task);
    const auto& m = data.metrics(key, t);
    timed = timed || !m.best_speedups.empty();
    measured_any = measured_any || m.correct.n > 0;
    const auto style = styles.style(key);
    chart.boxes.push_back(BoxSeries{.label = styles.label(key) + " · " + key.task,
                                    .group = static_cast<std::size_t>(group - chart.groups.begin()),
                                    .style = style,
                                    .values = m.best_speedups});
    if (legend_seen.insert(styles.label(key)).second) {
      chart.legend.push_back(LegendItem{.label = styles.label(key), .style = style, .line = false});
    }
  }
  chart.text = {
      .id = std::move(id),
      .title = fmt::format("Best speedup per trajectory within {} turns on {}", t, arch),
      .subtitle =
          "box: quartiles, whiskers to 1.5 IQR; dots: trajectories with a correct, timed kernel"};
  if (!timed) {
    chart.text.empty = measured_any ? fmt::format(
                                          "no trajectory has a correct, timed kernel "
                                          "within {} turns",
                                          t)
                                    : std::string(kNotMeasuredWhy);
  }
  return {.id = chart.text.id,
          .section = PlotSection::kSpeedup,
          .title = chart.text.title,
          .svg = render(chart),
          .empty = chart.text.empty};
}

Plot taxonomy_plot(const ReportData& data, const SeriesStyles& styles, const GroupKey& key,
                   const TrajectorySet& set, std::string id) {
  StackedBarChart chart{.x_label = "turn", .y_label = "share of trajectories"};
  const int last = std::max(1, last_turn(set));
  for (const auto& outcome : kOutcomes) {
    chart.layers.push_back(
        StackLayer{.label = std::string(outcome_name(outcome)), .fill = outcome_fill(outcome)});
  }
  for (int turn = 1; turn <= last; ++turn) {
    chart.categories.push_back(std::to_string(turn));
    const auto b = breakdown_at_turn(set, turn, data.prices);
    for (std::size_t i = 0; i < kOutcomes.size(); ++i)
      chart.layers[i].counts.push_back(b.outcomes[i]);
  }
  chart.text = {.id = std::move(id),
                .title = fmt::format("How each turn ended: {} on {}", styles.label(key), key.arch),
                .subtitle = fmt::format("{} trajectories over all tasks; NO_TURN: ended earlier",
                                        set.size())};
  return {.id = chart.text.id,
          .section = PlotSection::kErrors,
          .title = chart.text.title,
          .svg = render(chart)};
}

// Bars per context level for one model on one arch: each task, and all tasks pooled.
std::vector<Plot> ablation_plots(const ReportData& data, const SeriesStyles& styles,
                                 std::set<std::string>& ids) {
  const int t = data.last_turn_limit();
  std::map<std::pair<std::string, std::string>, std::set<std::string>> contexts;
  for (const auto& [key, set] : data.series) contexts[{key.model, key.arch}].insert(key.context);
  std::vector<Plot> plots;
  for (const auto& [model_arch, levels] : contexts) {
    if (levels.size() < 2) continue;
    const auto& [model, arch] = model_arch;
    for (const bool strict : {false, true}) {
      GroupedBarChart chart{.y_label = strict ? fmt::format("verified@{} (strict)", t)
                                              : fmt::format("correct@{}", t)};
      std::set<std::string> in_legend;
      auto add_bars = [&](const std::map<GroupKey, TrajectorySet>& groups,
                          const std::string& task) {
        BarGroup group{.label = task == kPooled ? "all tasks" : task};
        for (const auto& [key, set] : groups) {
          if (key.model != model || key.arch != arch || key.task != task) continue;
          const auto& m = data.metrics(key, t);
          const auto& p = strict ? m.verified : m.correct;
          const auto style = styles.style(key);
          group.bars.push_back(Bar{.label = styles.label(key),
                                   .style = style,
                                   .value = p.rate(),
                                   .interval = p.interval(),
                                   .note = fmt::format("{}/{}", p.k, p.n)});
          if (in_legend.insert(styles.label(key)).second) {
            chart.legend.push_back(
                LegendItem{.label = styles.label(key), .fill = FillStyle{.colour = style.colour}});
          }
        }
        if (!group.bars.empty()) chart.groups.push_back(std::move(group));
      };
      std::set<std::string> tasks;
      for (const auto& [key, set] : data.cells) {
        if (key.model == model && key.arch == arch) tasks.insert(key.task);
      }
      for (const auto& task : tasks) add_bars(data.cells, task);
      if (tasks.size() > 1) add_bars(data.series, std::string(kPooled));
      const std::string metric = strict ? "verified" : "correct";
      chart.text = {
          .id = unique_id(ids, slug(fmt::format("ablation-{}-{}-{}", metric, model, arch))),
          .title = fmt::format("{}@{} by context level: {} on {}", metric, t, model, arch),
          .subtitle = "whiskers: 95% Wilson intervals"};
      const bool any_value =
          std::any_of(chart.groups.begin(), chart.groups.end(), [](const auto& g) {
            return std::any_of(g.bars.begin(), g.bars.end(), [](const Bar& b) { return b.value; });
          });
      if (!any_value) chart.text.empty = std::string(kNotMeasuredWhy);
      plots.push_back({.id = chart.text.id,
                       .section = PlotSection::kAblation,
                       .title = chart.text.title,
                       .svg = render(chart),
                       .empty = chart.text.empty});
    }
  }
  return plots;
}

Plot comparison_plot(const ReportData& data, const Comparison& comparison, std::string id) {
  const int t = data.last_turn_limit();
  ForestChart chart{
      .x_label = fmt::format("difference {} − {}", comparison.spec.b, comparison.spec.a),
      .series = {fmt::format("correct@{}", t), fmt::format("verified@{}", t),
                 fmt::format("verified_any@{}", t)}};
  std::set<std::string> models;
  std::set<std::string> runs;
  for (const auto& pair : comparison.pairs) {
    models.insert(pair.key.model);
    runs.insert(pair.key.run);
  }
  for (const auto& pair : comparison.pairs) {
    if (pair.a.turn_limit != t) continue;
    std::string label =
        pair.key.task == kPooled ? fmt::format("all {} tasks", pair.key.split) : pair.key.task;
    label += " · " + pair.key.arch;
    if (models.size() > 1) label += " · " + pair.key.model;
    if (runs.size() > 1) label += " · " + pair.key.run;
    ForestRow row{.label = label};
    const Difference* differences[] = {&pair.correct, &pair.verified, &pair.verified_any};
    for (std::size_t s = 0; s < 3; ++s) {
      row.points.push_back(ForestPoint{
          .series = s,
          .value = differences[s]->value,
          .interval = differences[s]->interval,
          .note = fmt::format("n = {} | {}", pair.a.trajectories, pair.b.trajectories)});
    }
    chart.rows.push_back(std::move(row));
  }
  chart.text = {
      .id = std::move(id),
      .title = fmt::format("{} vs {} ({})", comparison.spec.b, comparison.spec.a,
                           to_string(comparison.dimension)),
      .subtitle = "point: difference of rates; line: 95% Newcombe interval; right of 0 favours " +
                  comparison.spec.b};
  return {.id = chart.text.id,
          .section = PlotSection::kComparison,
          .title = chart.text.title,
          .svg = render(chart)};
}

// Our cells and the published rows for one task and arch at one turn limit, as points with
// their Wilson intervals: correct@t, and the loose arch rule both sides can compute.
Plot published_plot(const ReportData& data, const SeriesStyles& styles, const std::string& task,
                    const std::string& arch, int t, std::string id) {
  ForestChart chart{.x_label = "share of trajectories",
                    .x_min = 0,
                    .x_max = 1,
                    .reference = std::nullopt,
                    .label_width = 300,
                    .series = {fmt::format("correct@{}", t),
                               fmt::format("verified_any@{} (published: correct_with_arch)", t)}};
  auto add = [&](std::string label, const Proportion& correct,
                 const std::optional<Proportion>& with_arch, bool first_of_group) {
    ForestRow row{.label = std::move(label), .separator_before = first_of_group};
    row.points.push_back({.series = 0,
                          .value = correct.rate(),
                          .interval = correct.interval(),
                          .note = fmt::format("{}/{}", correct.k, correct.n)});
    if (with_arch) {
      row.points.push_back({.series = 1,
                            .value = with_arch->rate(),
                            .interval = with_arch->interval(),
                            .note = fmt::format("{}/{}", with_arch->k, with_arch->n)});
    }
    chart.rows.push_back(std::move(row));
  };
  for (const auto& [key, set] : data.cells) {
    if (key.task != task || key.arch != arch) continue;
    const auto& m = data.metrics(key, t);
    add("ptxbench: " + styles.label(key), m.correct, m.verified_any, false);
  }
  std::map<std::string, int> experiments_per_model;
  for (const auto& row : data.published) {
    if (row.task == task && row.arch == arch && row.turn_limit == t) {
      ++experiments_per_model[row.model];
    }
  }
  bool first_published = true;
  for (const auto& row : data.published) {
    if (row.task != task || row.arch != arch || row.turn_limit != t || !row.correct) continue;
    std::string label = "published: " + row.model;
    if (experiments_per_model[row.model] > 1) label += " [" + row.experiment + "]";
    std::optional<Proportion> with_arch;
    if (row.correct_with_arch)
      with_arch = Proportion{.k = *row.correct_with_arch, .n = row.trajectories};
    add(std::move(label), Proportion{.k = *row.correct, .n = row.trajectories}, with_arch,
        std::exchange(first_published, false));
  }
  chart.text = {
      .id = std::move(id),
      .title = fmt::format("Beside the published results: {} on {}, t = {}", task, arch, t),
      .subtitle = "points: rates; lines: 95% Wilson intervals from the published counts"};
  return {.id = chart.text.id,
          .section = PlotSection::kPublished,
          .title = chart.text.title,
          .svg = render(chart)};
}

std::vector<Plot> published_plots(const ReportData& data, const SeriesStyles& styles,
                                  std::set<std::string>& ids) {
  // For each task and arch both cover, the largest turn limit both report.
  std::map<std::pair<std::string, std::string>, int> limit;
  for (const auto& [key, set] : data.cells) {
    for (const auto& row : data.published) {
      if (row.task != key.task || row.arch != key.arch) continue;
      if (std::find(data.turn_limits.begin(), data.turn_limits.end(), row.turn_limit) ==
          data.turn_limits.end()) {
        continue;
      }
      auto& t = limit[{key.task, key.arch}];
      t = std::max(t, row.turn_limit);
    }
  }
  std::vector<Plot> plots;
  for (const auto& [task_arch, t] : limit) {
    const auto& [task, arch] = task_arch;
    plots.push_back(
        published_plot(data, styles, task, arch, t,
                       unique_id(ids, slug(fmt::format("published-{}-{}", task, arch)))));
  }
  return plots;
}

}  // namespace

std::vector<Plot> build_plots(const ReportData& data) {
  const SeriesStyles styles(data);
  std::vector<Plot> plots;
  std::set<std::string> ids;
  std::map<std::pair<std::string, std::string>, std::set<std::string>> tasks_of_split;
  std::set<std::tuple<std::string, std::string, std::string>> arch_tasks;
  std::set<std::string> archs;
  for (const auto& [key, set] : data.cells) {
    tasks_of_split[{key.arch, key.split}].insert(key.task);
    arch_tasks.emplace(key.arch, key.task, key.split);
    archs.insert(key.arch);
  }
  // Pooled curves first, the training split before the held-out one; a split of one task is
  // already drawn as that task.
  auto split_order = [](const std::string& split) {
    return std::tuple{split != "train", split != "heldout", split};
  };
  for (const auto& arch : archs) {
    std::vector<std::string> splits;
    for (const auto& [arch_split, tasks] : tasks_of_split) {
      if (arch_split.first == arch && tasks.size() > 1) splits.push_back(arch_split.second);
    }
    std::sort(splits.begin(), splits.end(), [&](const std::string& a, const std::string& b) {
      return split_order(a) < split_order(b);
    });
    for (const auto& split : splits) {
      plots.push_back(
          curve_plot(styles, data.splits, kPooled, arch, split,
                     unique_id(ids, slug(fmt::format("curves-all-{}-{}",
                                                     split.empty() ? "unknown" : split, arch)))));
    }
  }
  for (const auto& [arch, task, split] : arch_tasks) {
    plots.push_back(curve_plot(styles, data.cells, task, arch, split,
                               unique_id(ids, slug(fmt::format("curves-{}-{}", task, arch)))));
  }
  for (const auto& arch : archs) {
    plots.push_back(speedup_plot(data, styles, arch, unique_id(ids, slug("speedup-" + arch))));
  }
  for (const auto& [key, set] : data.series) {
    plots.push_back(
        taxonomy_plot(data, styles, key, set,
                      unique_id(ids, slug("errors-" + styles.label(key) + "-" + key.arch))));
  }
  auto ablations = ablation_plots(data, styles, ids);
  plots.insert(plots.end(), ablations.begin(), ablations.end());
  for (const auto& comparison : data.comparisons) {
    plots.push_back(
        comparison_plot(data, comparison, unique_id(ids, slug("compare-" + comparison.spec.text))));
  }
  auto published = published_plots(data, styles, ids);
  plots.insert(plots.end(), published.begin(), published.end());
  return plots;
}

}  // namespace ptxbench::report
