// A small SVG writer for the report's plots: shapes and text with escaped content, plus the
// scales and tick choices every chart needs. Output is standalone SVG 1.1 (valid XML), so the
// same text is inlined in report.html and written to plots/<name>.svg.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxbench::report {

// Escapes text for XML and HTML content and attribute values (control characters dropped).
std::string xml_escape(std::string_view text);

struct Point {
  double x = 0;
  double y = 0;
};

enum class Anchor { kStart, kMiddle, kEnd };

struct TextStyle {
  double size = 12;
  Anchor anchor = Anchor::kStart;
  bool bold = false;
  double rotate = 0;  // degrees, about the anchor point
  std::string fill = "#222222";
};

struct Stroke {
  std::string colour = "#222222";
  double width = 1;
  std::string dash;  // SVG stroke-dasharray; empty: solid
  double opacity = 1;
};

class SvgCanvas {
 public:
  // title and description become <title> and <desc>: what a screen reader announces.
  SvgCanvas(double width, double height, std::string_view id, std::string_view title,
            std::string_view description);

  double width() const { return width_; }
  double height() const { return height_; }

  void add_def(std::string_view element);  // e.g. a <pattern>
  void line(Point a, Point b, const Stroke& stroke);
  void polyline(const std::vector<Point>& points, const Stroke& stroke);
  void polygon(const std::vector<Point>& points, std::string_view fill, double opacity);
  // fill may be a colour or "url(#pattern)"; tooltip becomes a <title> child.
  void rect(double x, double y, double w, double h, std::string_view fill,
            const Stroke* stroke = nullptr, std::string_view tooltip = {});
  void circle(Point centre, double radius, std::string_view fill, const Stroke* stroke = nullptr,
              std::string_view tooltip = {}, double opacity = 1);
  void text(Point at, std::string_view content, const TextStyle& style = {},
            std::string_view tooltip = {});
  void raw(std::string_view element);  // an element built elsewhere (already escaped)

  std::string str() const;  // the whole <svg> element

 private:
  double width_;
  double height_;
  std::string id_;
  std::string title_;
  std::string description_;
  std::string defs_;
  std::string body_;
};

// Maps a data interval to pixels, linearly or logarithmically (log needs a positive domain).
class Scale {
 public:
  Scale(double domain_lo, double domain_hi, double range_lo, double range_hi, bool log = false);
  double operator()(double value) const;
  double domain_lo() const { return lo_; }
  double domain_hi() const { return hi_; }
  bool log() const { return log_; }

 private:
  double lo_;
  double hi_;
  double range_lo_;
  double range_hi_;
  bool log_;
};

// Round tick values ("nice" steps of 1, 2, 5 x 10^k) covering [lo, hi], about `count` of them.
std::vector<double> linear_ticks(double lo, double hi, int count);
// 1, 2, 5 x 10^k within [lo, hi] (lo > 0); thinned to powers of ten when there are too many.
std::vector<double> log_ticks(double lo, double hi);
std::string tick_label(double value);  // "0.5", "1", "20", "0.05"

// Width of a label in pixels, estimated (no font metrics offline); used to place legends.
double text_width(std::string_view text, double font_size);
// The label cut to max_px with an ellipsis.
std::string fit_text(std::string_view text, double font_size, double max_px);

}  // namespace ptxbench::report
