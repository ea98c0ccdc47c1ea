// Pieces every chart shares: the title block, axes with grid lines, and the legend column.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ptxbench/report/charts.hpp"
#include "ptxbench/report/svg.hpp"

namespace ptxbench::report {

struct PlotArea {
  double left = 0;
  double top = 0;
  double right = 0;
  double bottom = 0;
  double width() const { return right - left; }
  double height() const { return bottom - top; }
};

inline constexpr double kChartWidth = 760;
inline constexpr double kTickFont = 12;
inline constexpr double kLabelFont = 13;
inline constexpr double kLegendFont = 12;
inline constexpr double kLegendRow = 19;
inline constexpr std::string_view kAxisColour = "#444444";
inline constexpr std::string_view kGridColour = "#e3e3e3";

// Title and subtitle at the top-left; returns the y where the plot may start.
double draw_title(SvgCanvas& canvas, const ChartText& text);

void draw_y_axis(SvgCanvas& canvas, const PlotArea& area, const Scale& scale,
                 const std::vector<double>& ticks, std::string_view label);
void draw_x_axis(SvgCanvas& canvas, const PlotArea& area, const Scale& scale,
                 const std::vector<double>& ticks, std::string_view label);
// Category labels centred under each band; rotated when they would collide.
void draw_x_categories(SvgCanvas& canvas, const PlotArea& area,
                       const std::vector<std::string>& labels, const std::vector<double>& centres,
                       double band_width, std::string_view label);

// Width the legend column needs for these labels (a sample, a gap, the longest label), within
// bounds that leave the plot most of the chart.
double legend_width(const std::vector<LegendItem>& items);
// Vertical legend starting at (x, y); returns its height.
double draw_legend(SvgCanvas& canvas, double x, double y, double max_width,
                   const std::vector<LegendItem>& items, std::string_view id_prefix);
// The same items in one row from (x, y), wrapping at max_width; returns its height.
double draw_legend_row(SvgCanvas& canvas, double x, double y, double max_width,
                       const std::vector<LegendItem>& items, std::string_view id_prefix);
// Height of a chart whose plot area is plot_height tall, with `below` pixels of axis labels
// under it, beside a legend of `legend_rows` rows.
double chart_height(const ChartText& text, double plot_height, std::size_t legend_rows,
                    double below);

// Space needed below the plot for category labels of this width (and an axis label).
double category_label_height(const std::vector<std::string>& labels, double band_width,
                             bool axis_label);

}  // namespace ptxbench::report
