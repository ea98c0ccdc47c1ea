// Box + strip plot on a log axis: per group (task) one box per series with every observation
// drawn beside it, so small samples are seen as they are, not only as a summary.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ptxbench/report/chart_frame.hpp"

namespace ptxbench::report {
namespace {

struct Domain {
  double lo = 0.5;
  double hi = 2;
};

Domain log_domain(const BoxStripChart& chart) {
  double lo = chart.reference;
  double hi = chart.reference;
  for (const auto& box : chart.boxes) {
    for (double v : box.values) {
      if (v <= 0 || !std::isfinite(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  // Whole 1-2-5 steps around the data, so ticks sit at the edges.
  auto down = [](double v) {
    const double p = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {5.0, 2.0, 1.0}) {
      if (m * p <= v) return m * p;
    }
    return p;
  };
  auto up = [](double v) {
    const double p = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
      if (m * p >= v) return m * p;
    }
    return 10 * p;
  };
  return {down(lo * 0.95), up(hi * 1.05)};
}

// Deterministic spread in [-1, 1]: the golden-ratio sequence covers an interval evenly.
double jitter(std::size_t i) {
  const double g = std::fmod(static_cast<double>(i) * 0.6180339887498949, 1.0);
  return 2 * g - 1;
}

}  // namespace

std::string render(const BoxStripChart& chart) {
  constexpr double kPlotHeight = 280;
  const double legend_px = legend_width(chart.legend);
  const double plot_right = kChartWidth - legend_px - 20;
  const double band =
      chart.groups.empty() ? 1 : (plot_right - 72) / static_cast<double>(chart.groups.size());
  const double label_height = category_label_height(chart.groups, band, false);
  SvgCanvas canvas(kChartWidth,
                   chart_height(chart.text, kPlotHeight, chart.legend.size(), label_height),
                   chart.text.id, chart.text.title, chart.text.subtitle);
  const double top = draw_title(canvas, chart.text);
  const PlotArea area{.left = 72, .top = top, .right = plot_right, .bottom = top + kPlotHeight};
  const Domain domain = log_domain(chart);
  const Scale y(domain.lo, domain.hi, area.bottom, area.top, /*log=*/true);
  draw_y_axis(canvas, area, y, log_ticks(domain.lo, domain.hi), chart.y_label);

  std::vector<double> centres;
  for (std::size_t g = 0; g < chart.groups.size(); ++g)
    centres.push_back(area.left + band * (g + 0.5));
  draw_x_categories(canvas, area, chart.groups, centres, band, "");

  const double ref_y = y(chart.reference);
  canvas.line({area.left, ref_y}, {area.right, ref_y},
              {.colour = "#333333", .width = 1.2, .dash = "5 3"});
  canvas.text({area.right - 4, ref_y - 5},
              fmt::format("baseline = {}", tick_label(chart.reference)),
              {.size = 10, .anchor = Anchor::kEnd, .fill = "#333333"});

  for (std::size_t g = 0; g < chart.groups.size(); ++g) {
    std::vector<const BoxSeries*> in_group;
    for (const auto& box : chart.boxes) {
      if (box.group == g) in_group.push_back(&box);
    }
    const double slot = band / std::max<std::size_t>(in_group.size(), 1);
    for (std::size_t s = 0; s < in_group.size(); ++s) {
      const BoxSeries& box = *in_group[s];
      const double cx = area.left + band * g + slot * (s + 0.5);
      const double half = std::min(slot * 0.22, 14.0);
      const std::string colour(box.style.colour);
      std::vector<double> values;
      for (double v : box.values) {
        if (v > 0 && std::isfinite(v)) values.push_back(v);
      }
      canvas.text({cx, area.bottom - 5}, fmt::format("n={}", values.size()),
                  {.size = 10, .anchor = Anchor::kMiddle, .fill = "#666666"},
                  box.label + ": trajectories with a correct, timed kernel");
      if (values.empty()) continue;
      std::sort(values.begin(), values.end());
      const double q1 = quantile_sorted(values, 0.25);
      const double q2 = quantile_sorted(values, 0.5);
      const double q3 = quantile_sorted(values, 0.75);
      const double reach = 1.5 * (q3 - q1);
      const double lo =
          *std::find_if(values.begin(), values.end(), [&](double v) { return v >= q1 - reach; });
      const double hi =
          *std::find_if(values.rbegin(), values.rend(), [&](double v) { return v <= q3 + reach; });
      const double bx = cx - half * 1.1;  // box left of centre, strip to its right
      const Stroke edge{.colour = colour, .width = 1.5};
      canvas.line({bx, y(lo)}, {bx, y(q1)}, edge);
      canvas.line({bx, y(q3)}, {bx, y(hi)}, edge);
      canvas.line({bx - half * 0.5, y(lo)}, {bx + half * 0.5, y(lo)}, edge);
      canvas.line({bx - half * 0.5, y(hi)}, {bx + half * 0.5, y(hi)}, edge);
      canvas.rect(bx - half, y(q3), 2 * half, y(q1) - y(q3), "#ffffff", &edge,
                  fmt::format("{}: n={} median {:.3f}, quartiles {:.3f}-{:.3f}", box.label,
                              values.size(), q2, q1, q3));
      canvas.line({bx - half, y(q2)}, {bx + half, y(q2)}, {.colour = colour, .width = 2.5});
      for (std::size_t i = 0; i < values.size(); ++i) {
        const Point p{cx + half * 1.1 + jitter(i) * half * 0.6, y(values[i])};
        canvas.circle(p, 2.6, colour, nullptr, fmt::format("{}: {:.3f}", box.label, values[i]),
                      0.75);
      }
    }
  }
  draw_legend(canvas, area.right + 14, area.top, legend_px, chart.legend, chart.text.id);
  return canvas.str();
}

}  // namespace ptxbench::report
