#include "ptxbench/report/chart_frame.hpp"

#include <algorithm>

namespace ptxbench::report {
namespace {

constexpr double kCategoryAngle = -35;
constexpr double kLegendSample = 26;

bool categories_collide(const std::vector<std::string>& labels, double band_width) {
  return std::any_of(labels.begin(), labels.end(), [band_width](const std::string& l) {
    return text_width(l, kTickFont) > band_width - 4;
  });
}

}  // namespace

double draw_title(SvgCanvas& canvas, const ChartText& text) {
  const double max_px = canvas.width() - 24;
  canvas.text({12, 21}, fit_text(text.title, 15, max_px), {.size = 15, .bold = true}, text.title);
  double y = 26;
  if (!text.subtitle.empty()) {
    canvas.text({12, 40}, fit_text(text.subtitle, 12, max_px), {.size = 12, .fill = "#555555"},
                text.subtitle);
    y = 44;
  }
  if (!text.empty.empty()) {
    canvas.text({12, y + 16}, fit_text("Nothing to draw: " + text.empty, 13, max_px),
                {.size = 13, .bold = true, .fill = "#a05a00"}, text.empty);
    y += 22;
  }
  return y + 10;
}

void draw_y_axis(SvgCanvas& canvas, const PlotArea& area, const Scale& scale,
                 const std::vector<double>& ticks, std::string_view label) {
  for (double tick : ticks) {
    const double y = scale(tick);
    canvas.line({area.left, y}, {area.right, y}, {.colour = std::string(kGridColour), .width = 1});
    canvas.line({area.left - 4, y}, {area.left, y}, {.colour = std::string(kAxisColour)});
    canvas.text({area.left - 7, y + 4}, tick_label(tick),
                {.size = kTickFont, .anchor = Anchor::kEnd});
  }
  canvas.line({area.left, area.top}, {area.left, area.bottom},
              {.colour = std::string(kAxisColour)});
  canvas.text({area.left - 46, (area.top + area.bottom) / 2}, label,
              {.size = kLabelFont, .anchor = Anchor::kMiddle, .rotate = -90});
}

void draw_x_axis(SvgCanvas& canvas, const PlotArea& area, const Scale& scale,
                 const std::vector<double>& ticks, std::string_view label) {
  canvas.line({area.left, area.bottom}, {area.right, area.bottom},
              {.colour = std::string(kAxisColour)});
  for (double tick : ticks) {
    const double x = scale(tick);
    canvas.line({x, area.bottom}, {x, area.bottom + 4}, {.colour = std::string(kAxisColour)});
    canvas.text({x, area.bottom + 17}, tick_label(tick),
                {.size = kTickFont, .anchor = Anchor::kMiddle});
  }
  canvas.text({(area.left + area.right) / 2, area.bottom + 38}, label,
              {.size = kLabelFont, .anchor = Anchor::kMiddle});
}

double category_label_height(const std::vector<std::string>& labels, double band_width,
                             bool axis_label) {
  if (!categories_collide(labels, band_width)) return axis_label ? 46 : 26;
  double widest = 0;
  for (const auto& l : labels) widest = std::max(widest, std::min(text_width(l, kTickFont), 170.0));
  return (axis_label ? 34 : 18) + widest * 0.58;  // sin(35°)
}

void draw_x_categories(SvgCanvas& canvas, const PlotArea& area,
                       const std::vector<std::string>& labels, const std::vector<double>& centres,
                       double band_width, std::string_view label) {
  canvas.line({area.left, area.bottom}, {area.right, area.bottom},
              {.colour = std::string(kAxisColour)});
  const bool rotate = categories_collide(labels, band_width);
  for (std::size_t i = 0; i < labels.size() && i < centres.size(); ++i) {
    if (rotate) {
      canvas.text({centres[i] + 4, area.bottom + 14}, fit_text(labels[i], kTickFont, 170),
                  {.size = kTickFont, .anchor = Anchor::kEnd, .rotate = kCategoryAngle}, labels[i]);
    } else {
      canvas.text({centres[i], area.bottom + 17}, labels[i],
                  {.size = kTickFont, .anchor = Anchor::kMiddle});
    }
  }
  if (!label.empty()) {
    canvas.text({(area.left + area.right) / 2,
                 area.bottom + category_label_height(labels, band_width, true) - 6},
                label, {.size = kLabelFont, .anchor = Anchor::kMiddle});
  }
}

double legend_width(const std::vector<LegendItem>& items) {
  double widest = 0;
  for (const auto& item : items) widest = std::max(widest, text_width(item.label, kLegendFont));
  return std::clamp(widest + kLegendSample + 16, 120.0, 290.0);
}

double chart_height(const ChartText& text, double plot_height, std::size_t legend_rows,
                    double below) {
  const double top = (text.subtitle.empty() ? 36 : 54) + (text.empty.empty() ? 0 : 22);
  return top + std::max(plot_height, kLegendRow * static_cast<double>(legend_rows)) + below + 8;
}

namespace {
// One legend entry with its sample at (x, y..y+row); returns the entry's width.
double draw_legend_item(SvgCanvas& canvas, double x, double y, double max_width,
                        const LegendItem& item, std::string_view id_prefix) {
  const double mid = y + kLegendRow / 2;
  if (item.fill) {
    canvas.add_def(hatch_pattern_def(id_prefix, *item.fill));
    const Stroke edge{.colour = "#666666", .width = 0.5};
    canvas.rect(x + 6, mid - 6, 14, 12, fill_reference(id_prefix, *item.fill), &edge);
  } else {
    const std::string colour(item.style ? item.style->colour : "#444444");
    if (item.line) {
      canvas.line({x, mid}, {x + kLegendSample, mid},
                  {.colour = colour, .width = 2, .dash = item.dash});
    }
    if (item.style)
      draw_marker(canvas, item.style->marker, {x + kLegendSample / 2, mid}, 8, colour);
  }
  const std::string label = fit_text(item.label, kLegendFont, max_width - kLegendSample - 8);
  canvas.text({x + kLegendSample + 6, mid + 4}, label, {.size = kLegendFont}, item.label);
  return kLegendSample + 6 + text_width(label, kLegendFont);
}
}  // namespace

double draw_legend_row(SvgCanvas& canvas, double x, double y, double max_width,
                       const std::vector<LegendItem>& items, std::string_view id_prefix) {
  double at = x;
  double row_y = y;
  for (const auto& item : items) {
    const double width = kLegendSample + 6 + text_width(item.label, kLegendFont);
    if (at > x && at + width > x + max_width) {
      at = x;
      row_y += kLegendRow;
    }
    at += draw_legend_item(canvas, at, row_y, max_width, item, id_prefix) + 18;
  }
  return row_y + kLegendRow - y;
}

double draw_legend(SvgCanvas& canvas, double x, double y, double max_width,
                   const std::vector<LegendItem>& items, std::string_view id_prefix) {
  double row_y = y;
  for (const auto& item : items) {
    draw_legend_item(canvas, x, row_y, max_width, item, id_prefix);
    row_y += kLegendRow;
  }
  return row_y - y;
}

}  // namespace ptxbench::report
