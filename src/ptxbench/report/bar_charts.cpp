// Bars: stacked shares per category (error taxonomy per turn), grouped bars with interval
// whiskers (ablations), and a forest plot of differences with their intervals (comparisons).
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "ptxbench/report/chart_frame.hpp"

namespace ptxbench::report {
namespace {
constexpr double kPlotHeight = 260;
}  // namespace

std::string render(const StackedBarChart& chart) {
  std::vector<LegendItem> legend;
  for (auto it = chart.layers.rbegin(); it != chart.layers.rend(); ++it) {
    const bool used =
        std::any_of(it->counts.begin(), it->counts.end(), [](int c) { return c > 0; });
    if (used) legend.push_back(LegendItem{.label = it->label, .fill = it->fill});
  }
  const double legend_px = legend_width(legend);
  const double plot_right = kChartWidth - legend_px - 20;
  const double band = chart.categories.empty()
                          ? 1
                          : (plot_right - 64) / static_cast<double>(chart.categories.size());
  SvgCanvas canvas(kChartWidth, chart_height(chart.text, kPlotHeight + 12, legend.size(), 48),
                   chart.text.id, chart.text.title, chart.text.subtitle);
  const double top = draw_title(canvas, chart.text) + 12;  // room for the n= labels
  const PlotArea area{.left = 64, .top = top, .right = plot_right, .bottom = top + kPlotHeight};
  const Scale y(0, 1, area.bottom, area.top);
  draw_y_axis(canvas, area, y, linear_ticks(0, 1, 5), chart.y_label);
  std::vector<double> centres;
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    centres.push_back(area.left + band * (static_cast<double>(c) + 0.5));
  }
  draw_x_categories(canvas, area, chart.categories, centres, band, chart.x_label);
  for (const auto& layer : chart.layers)
    canvas.add_def(hatch_pattern_def(chart.text.id, layer.fill));
  const Stroke separator{.colour = "#ffffff", .width = 0.6};
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    int total = 0;
    for (const auto& layer : chart.layers) total += c < layer.counts.size() ? layer.counts[c] : 0;
    if (total == 0) continue;
    const double width = std::min(band * 0.7, 56.0);
    double cumulative = 0;
    for (const auto& layer : chart.layers) {
      const int count = c < layer.counts.size() ? layer.counts[c] : 0;
      if (count == 0) continue;
      const double share = static_cast<double>(count) / total;
      canvas.rect(centres[c] - width / 2, y(cumulative + share), width,
                  y(cumulative) - y(cumulative + share), fill_reference(chart.text.id, layer.fill),
                  &separator,
                  fmt::format("{} {}: {}: {} of {} ({:.0f}%)", chart.x_label, chart.categories[c],
                              layer.label, count, total, 100 * share));
      cumulative += share;
    }
    canvas.text({centres[c], area.top - 5}, fmt::format("n={}", total),
                {.size = 10, .anchor = Anchor::kMiddle, .fill = "#555555"});
  }
  draw_legend(canvas, area.right + 14, area.top, legend_px, legend, chart.text.id);
  return canvas.str();
}

std::string render(const GroupedBarChart& chart) {
  const double legend_px = legend_width(chart.legend);
  const double plot_right = kChartWidth - legend_px - 20;
  std::vector<std::string> labels;
  for (const auto& group : chart.groups) labels.push_back(group.label);
  const double band = labels.empty() ? 1 : (plot_right - 64) / static_cast<double>(labels.size());
  const double below = category_label_height(labels, band, false);
  SvgCanvas canvas(
      kChartWidth,
      chart_height(chart.text, kPlotHeight, static_cast<double>(chart.legend.size()), below),
      chart.text.id, chart.text.title, chart.text.subtitle);
  const double top = draw_title(canvas, chart.text);
  const PlotArea area{.left = 64, .top = top, .right = plot_right, .bottom = top + kPlotHeight};
  const Scale y(chart.y_min, chart.y_max, area.bottom, area.top);
  draw_y_axis(canvas, area, y, linear_ticks(chart.y_min, chart.y_max, 5), chart.y_label);
  std::vector<double> centres;
  for (std::size_t g = 0; g < labels.size(); ++g) {
    centres.push_back(area.left + band * (static_cast<double>(g) + 0.5));
  }
  draw_x_categories(canvas, area, labels, centres, band, "");
  for (std::size_t g = 0; g < chart.groups.size(); ++g) {
    const auto& bars = chart.groups[g].bars;
    const double slot = band * 0.8 / static_cast<double>(std::max<std::size_t>(bars.size(), 1));
    const double start = centres[g] - band * 0.4;
    for (std::size_t b = 0; b < bars.size(); ++b) {
      const Bar& bar = bars[b];
      const double cx = start + slot * (static_cast<double>(b) + 0.5);
      const double w = std::min(slot * 0.8, 40.0);
      const std::string colour(bar.style.colour);
      if (!bar.value) {
        canvas.text({cx, area.bottom - 4}, "n/a",
                    {.size = 9, .anchor = Anchor::kMiddle, .fill = "#777777"});
        continue;
      }
      const double value = std::clamp(*bar.value, chart.y_min, chart.y_max);
      canvas.rect(cx - w / 2, y(value), w, y(chart.y_min) - y(value), colour, nullptr,
                  fmt::format("{} · {}: {:.2f}{}{}", chart.groups[g].label, bar.label, *bar.value,
                              bar.interval ? fmt::format(" [{:.2f}, {:.2f}]", bar.interval->lo,
                                                         bar.interval->hi)
                                           : "",
                              bar.note.empty() ? "" : " " + bar.note));
      if (bar.interval) {
        const Stroke whisker{.colour = "#222222", .width = 1.2};
        const double lo = y(std::clamp(bar.interval->lo, chart.y_min, chart.y_max));
        const double hi = y(std::clamp(bar.interval->hi, chart.y_min, chart.y_max));
        canvas.line({cx, lo}, {cx, hi}, whisker);
        canvas.line({cx - w * 0.25, lo}, {cx + w * 0.25, lo}, whisker);
        canvas.line({cx - w * 0.25, hi}, {cx + w * 0.25, hi}, whisker);
      }
    }
  }
  draw_legend(canvas, area.right + 14, area.top, legend_px, chart.legend, chart.text.id);
  return canvas.str();
}

std::string render(const ForestChart& chart) {
  constexpr double kRowHeight = 34;
  const double label_width = chart.label_width;
  std::vector<LegendItem> legend;
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    legend.push_back(LegendItem{.label = chart.series[s], .style = series_style(s), .line = false});
  }
  // The legend runs along the top: row labels already take the left, the plot needs the width.
  const double plot = std::max(kRowHeight * static_cast<double>(chart.rows.size()), 60.0);
  SvgCanvas canvas(kChartWidth, chart_height(chart.text, plot + kLegendRow + 6, 0, 48),
                   chart.text.id, chart.text.title, chart.text.subtitle);
  const double legend_top = draw_title(canvas, chart.text) - 4;
  draw_legend_row(canvas, label_width, legend_top, kChartWidth - label_width - 20, legend,
                  chart.text.id);
  const double top = legend_top + kLegendRow + 10;
  const PlotArea area{
      .left = label_width, .top = top, .right = kChartWidth - 24, .bottom = top + plot};
  const Scale x(chart.x_min, chart.x_max, area.left, area.right);
  const auto ticks = linear_ticks(chart.x_min, chart.x_max, 4);
  for (double tick : ticks) {
    canvas.line({x(tick), area.top}, {x(tick), area.bottom}, {.colour = std::string(kGridColour)});
  }
  draw_x_axis(canvas, area, x, ticks, chart.x_label);
  if (chart.reference) {
    canvas.line({x(*chart.reference), area.top}, {x(*chart.reference), area.bottom},
                {.colour = "#333333", .width = 1.2, .dash = "4 3"});
  }
  const double offset_step =
      kRowHeight * 0.5 / static_cast<double>(std::max<std::size_t>(chart.series.size(), 1));
  for (std::size_t r = 0; r < chart.rows.size(); ++r) {
    const auto& row = chart.rows[r];
    const double row_mid = area.top + kRowHeight * (static_cast<double>(r) + 0.5);
    if (row.separator_before && r > 0) {
      const double y = area.top + kRowHeight * static_cast<double>(r);
      canvas.line({8, y}, {area.right, y}, {.colour = "#bbbbbb", .width = 1});
    }
    canvas.text({area.left - 8, row_mid + 4}, fit_text(row.label, kTickFont, label_width - 16),
                {.size = kTickFont, .anchor = Anchor::kEnd}, row.label);
    for (const auto& point : row.points) {
      if (!point.value) continue;
      const auto style = series_style(point.series);
      const double py = row_mid + (static_cast<double>(point.series) -
                                   (static_cast<double>(chart.series.size()) - 1) / 2) *
                                      offset_step;
      if (point.interval) {
        canvas.line({x(std::clamp(point.interval->lo, chart.x_min, chart.x_max)), py},
                    {x(std::clamp(point.interval->hi, chart.x_min, chart.x_max)), py},
                    {.colour = std::string(style.colour), .width = 1.8});
      }
      const std::string name = point.series < chart.series.size() ? chart.series[point.series] : "";
      draw_marker(canvas, style.marker, {x(std::clamp(*point.value, chart.x_min, chart.x_max)), py},
                  8, style.colour,
                  fmt::format("{} · {}: {:+.2f}{} {}", row.label, name, *point.value,
                              point.interval ? fmt::format(" [{:+.2f}, {:+.2f}]",
                                                           point.interval->lo, point.interval->hi)
                                             : "",
                              point.note));
    }
  }
  return canvas.str();
}

}  // namespace ptxbench::report
