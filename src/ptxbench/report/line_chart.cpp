// Lines over turns, in panels side by side that share the x range and one legend: per series a
// polyline with markers and an optional interval band.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ptxbench/report/chart_frame.hpp"

namespace ptxbench::report {
namespace {

constexpr double kPlotHeight = 250;
constexpr double kPanelGap = 64;  // room for the next panel's tick labels and y label

void draw_panel(SvgCanvas& canvas, const LineChart& chart, const LinePanel& panel,
                const PlotArea& area) {
  const Scale x(chart.x_min, std::max(chart.x_max, chart.x_min + 1), area.left + 10,
                area.right - 10);
  const Scale y(panel.y_min, panel.y_max, area.bottom, area.top);
  canvas.text({(area.left + area.right) / 2, area.top - 6}, panel.title,
              {.size = kLabelFont, .anchor = Anchor::kMiddle, .bold = true});
  draw_y_axis(canvas, area, y, linear_ticks(panel.y_min, panel.y_max, 5), panel.y_label);
  std::vector<double> x_ticks;
  const double span = chart.x_max - chart.x_min;
  const double step = span > 12 ? std::ceil(span / 6) : 1;
  for (double t = chart.x_min; t <= chart.x_max + 1e-9; t += step) x_ticks.push_back(t);
  draw_x_axis(canvas, area, x, x_ticks, chart.x_label);

  // Bands first, so that no band hides a line.
  for (const auto& series : panel.series) {
    if (series.band.size() != series.x.size()) continue;
    std::vector<Point> outline;
    for (std::size_t i = 0; i < series.x.size(); ++i) {
      if (series.band[i]) outline.push_back({x(series.x[i]), y(series.band[i]->hi)});
    }
    for (std::size_t i = series.x.size(); i-- > 0;) {
      if (series.band[i]) outline.push_back({x(series.x[i]), y(series.band[i]->lo)});
    }
    canvas.polygon(outline, series.style.colour, 0.10);
  }
  for (const auto& series : panel.series) {
    std::vector<Point> points;
    for (std::size_t i = 0; i < series.x.size() && i < series.y.size(); ++i) {
      points.push_back({x(series.x[i]), y(series.y[i])});
    }
    canvas.polyline(
        points, {.colour = std::string(series.style.colour), .width = 2.2, .dash = series.dash});
    for (std::size_t i = 0; i < points.size(); ++i) {
      std::string tip = fmt::format("{}: t={} {:.2f}", series.label, series.x[i], series.y[i]);
      if (i < series.band.size() && series.band[i]) {
        tip += fmt::format(" [{:.2f}, {:.2f}]", series.band[i]->lo, series.band[i]->hi);
      }
      draw_marker(canvas, series.style.marker, points[i], 7, series.style.colour, tip);
    }
  }
}

}  // namespace

std::string render(const LineChart& chart) {
  const double legend = legend_width(chart.legend);
  const double below = 48;
  SvgCanvas canvas(kChartWidth,
                   chart_height(chart.text, kPlotHeight + 18, chart.legend.size(), below),
                   chart.text.id, chart.text.title, chart.text.subtitle);
  const double top = draw_title(canvas, chart.text) + 18;  // panel titles above the plots
  const double left = 64;
  const double right = kChartWidth - legend - 20;
  const double panels = static_cast<double>(std::max<std::size_t>(chart.panels.size(), 1));
  const double width = (right - left - kPanelGap * (panels - 1)) / panels;
  for (std::size_t p = 0; p < chart.panels.size(); ++p) {
    const double panel_left = left + static_cast<double>(p) * (width + kPanelGap);
    draw_panel(
        canvas, chart, chart.panels[p],
        {.left = panel_left, .top = top, .right = panel_left + width, .bottom = top + kPlotHeight});
  }
  draw_legend(canvas, right + 14, top, legend, chart.legend, chart.text.id);
  return canvas.str();
}

}  // namespace ptxbench::report
