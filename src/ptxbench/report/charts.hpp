// The report's plot types, each a function from a plain description to a standalone <svg>:
// lines over turns (with an interval band), box + strip plots of speedups (log axis, baseline
// line at 1), stacked bars (error taxonomy per turn), grouped bars with interval whiskers
// (context-level ablation) and a forest plot of differences (comparisons).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/report/palette.hpp"
#include "ptxbench/report/statistics.hpp"

namespace ptxbench::report {

struct ChartText {
  std::string id;  // unique in the page; also the file name plots/<id>.svg
  std::string title;
  std::string subtitle;  // what is pooled, n, which interval
  std::string empty;     // set when there is nothing to draw: why, shown under the title
};

struct LegendItem {
  std::string label;
  std::optional<SeriesStyle> style;  // a coloured marker (and line unless line_only is false)
  std::string dash;                  // a line sample with this dash ("" solid)
  bool line = true;                  // draw a line sample
  std::optional<FillStyle> fill;     // a swatch instead
};

struct LineSeries {
  std::string label;  // tooltip prefix
  SeriesStyle style;
  std::string dash;  // "" solid
  std::vector<double> x;
  std::vector<double> y;
  std::vector<std::optional<Interval>> band;  // empty: no band
};

// One plot area of a line chart; panels share the x axis range and the legend.
struct LinePanel {
  std::string title;
  std::string y_label;
  double y_min = 0;
  double y_max = 1;
  std::vector<LineSeries> series;
};

struct LineChart {
  ChartText text;
  std::string x_label;
  double x_min = 1;
  double x_max = 8;
  std::vector<LinePanel> panels;  // side by side
  std::vector<LegendItem> legend;
};
std::string render(const LineChart& chart);

struct BoxSeries {
  std::string label;
  std::size_t group = 0;  // index into BoxStripChart::groups
  SeriesStyle style;
  std::vector<double> values;
};

struct BoxStripChart {
  ChartText text;
  std::string y_label;
  std::vector<std::string> groups;  // x categories, e.g. tasks
  std::vector<BoxSeries> boxes;
  double reference = 1.0;  // drawn as a labelled line ("baseline")
  std::vector<LegendItem> legend;
};
std::string render(const BoxStripChart& chart);

struct StackLayer {
  std::string label;
  FillStyle fill;
  std::vector<int> counts;  // per category
};

struct StackedBarChart {
  ChartText text;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> categories;  // x, e.g. "1".."8"
  std::vector<StackLayer> layers;       // bottom to top; shares of each category's total
};
std::string render(const StackedBarChart& chart);

struct Bar {
  std::string label;
  SeriesStyle style;
  std::optional<double> value;
  std::optional<Interval> interval;
  std::string note;  // tooltip detail, e.g. "9/12"
};

struct BarGroup {
  std::string label;
  std::vector<Bar> bars;
};

struct GroupedBarChart {
  ChartText text;
  std::string y_label;
  double y_min = 0;
  double y_max = 1;
  std::vector<BarGroup> groups;
  std::vector<LegendItem> legend;
};
std::string render(const GroupedBarChart& chart);

struct ForestPoint {
  std::size_t series = 0;  // index into ForestChart::series
  std::optional<double> value;
  std::optional<Interval> interval;
  std::string note;
};

struct ForestRow {
  std::string label;
  std::vector<ForestPoint> points;
  bool separator_before = false;  // a rule above the row: a new group starts
};

struct ForestChart {
  ChartText text;
  std::string x_label;
  double x_min = -1;
  double x_max = 1;
  std::optional<double> reference = 0.0;  // a dashed vertical line (no difference)
  double label_width = 230;               // room for row labels left of the plot
  std::vector<std::string> series;        // e.g. "correct@8", "verified@8"
  std::vector<ForestRow> rows;
};
std::string render(const ForestChart& chart);

}  // namespace ptxbench::report
