#include "ptxbench/report/svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "ptxbench/util/check.hpp"

namespace ptxbench::report {
namespace {

std::string num(double v) {
  // Two decimals are finer than a pixel; trailing zeros only cost bytes.
  std::string s = fmt::format("{:.2f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string points_attr(const std::vector<Point>& points) {
  std::string out;
  for (const auto& p : points) {
    if (!out.empty()) out += ' ';
    out += num(p.x) + "," + num(p.y);
  }
  return out;
}

std::string stroke_attrs(const Stroke& s) {
  std::string out =
      fmt::format(" stroke=\"{}\" stroke-width=\"{}\"", xml_escape(s.colour), num(s.width));
  if (!s.dash.empty()) out += fmt::format(" stroke-dasharray=\"{}\"", xml_escape(s.dash));
  if (s.opacity < 1) out += fmt::format(" stroke-opacity=\"{}\"", num(s.opacity));
  return out;
}

std::string with_tooltip(std::string_view open, std::string_view tooltip) {
  if (tooltip.empty()) return std::string(open) + "/>\n";
  return fmt::format("{}><title>{}</title></{}>\n", open, xml_escape(tooltip),
                     open.substr(1, open.find(' ') - 1));
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // Control characters are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') out += c;
    }
  }
  return out;
}

SvgCanvas::SvgCanvas(double width, double height, std::string_view id, std::string_view title,
                     std::string_view description)
    : width_(width), height_(height), id_(id), title_(title), description_(description) {}

void SvgCanvas::add_def(std::string_view element) {
  defs_ += element;
}

void SvgCanvas::line(Point a, Point b, const Stroke& stroke) {
  body_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"{}/>\n", num(a.x), num(a.y),
                       num(b.x), num(b.y), stroke_attrs(stroke));
}

void SvgCanvas::polyline(const std::vector<Point>& points, const Stroke& stroke) {
  if (points.empty()) return;
  body_ += fmt::format("<polyline points=\"{}\" fill=\"none\"{} stroke-linejoin=\"round\"/>\n",
                       points_attr(points), stroke_attrs(stroke));
}

void SvgCanvas::polygon(const std::vector<Point>& points, std::string_view fill, double opacity) {
  if (points.empty()) return;
  body_ += fmt::format("<polygon points=\"{}\" fill=\"{}\" fill-opacity=\"{}\" stroke=\"none\"/>\n",
                       points_attr(points), xml_escape(fill), num(opacity));
}

void SvgCanvas::rect(double x, double y, double w, double h, std::string_view fill,
                     const Stroke* stroke, std::string_view tooltip) {
  body_ +=
      with_tooltip(fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}",
                               num(x), num(y), num(std::max(0.0, w)), num(std::max(0.0, h)),
                               xml_escape(fill), stroke ? stroke_attrs(*stroke) : ""),
                   tooltip);
}

void SvgCanvas::circle(Point centre, double radius, std::string_view fill, const Stroke* stroke,
                       std::string_view tooltip, double opacity) {
  body_ +=
      with_tooltip(fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"{}{}",
                               num(centre.x), num(centre.y), num(radius), xml_escape(fill),
                               opacity < 1 ? fmt::format(" fill-opacity=\"{}\"", num(opacity)) : "",
                               stroke ? stroke_attrs(*stroke) : ""),
                   tooltip);
}

void SvgCanvas::text(Point at, std::string_view content, const TextStyle& style,
                     std::string_view tooltip) {
  const char* anchor = style.anchor == Anchor::kStart    ? "start"
                       : style.anchor == Anchor::kMiddle ? "middle"
                                                         : "end";
  std::string attrs =
      fmt::format("x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{}\" fill=\"{}\"", num(at.x),
                  num(at.y), num(style.size), anchor, xml_escape(style.fill));
  if (style.bold) attrs += " font-weight=\"bold\"";
  if (style.rotate != 0) {
    attrs +=
        fmt::format(" transform=\"rotate({} {} {})\"", num(style.rotate), num(at.x), num(at.y));
  }
  std::string inner = xml_escape(content);
  if (!tooltip.empty()) inner = fmt::format("<title>{}</title>{}", xml_escape(tooltip), inner);
  body_ += fmt::format("<text {}>{}</text>\n", attrs, inner);
}

void SvgCanvas::raw(std::string_view element) {
  body_ += element;
}

std::string SvgCanvas::str() const {
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"{}\" class=\"chart\" viewBox=\"0 0 {} {}\" "
      "width=\"{}\" height=\"{}\" role=\"img\" aria-labelledby=\"{}-title {}-desc\" "
      "font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, "
      "sans-serif\">\n<title id=\"{}-title\">{}</title>\n<desc id=\"{}-desc\">{}</desc>\n",
      xml_escape(id_), num(width_), num(height_), num(width_), num(height_), xml_escape(id_),
      xml_escape(id_), xml_escape(id_), xml_escape(title_), xml_escape(id_),
      xml_escape(description_));
  if (!defs_.empty()) out += "<defs>\n" + defs_ + "</defs>\n";
  out += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
                     num(width_), num(height_));
  out += body_;
  out += "</svg>\n";
  return out;
}

Scale::Scale(double domain_lo, double domain_hi, double range_lo, double range_hi, bool log)
    : lo_(domain_lo), hi_(domain_hi), range_lo_(range_lo), range_hi_(range_hi), log_(log) {
  PTXBENCH_CHECK(!log || (domain_lo > 0 && domain_hi > 0), "log scale needs a positive domain");
  if (hi_ == lo_) hi_ = lo_ + 1;
}

double Scale::operator()(double value) const {
  double t = 0;
  if (log_) {
    t = (std::log(std::max(value, 1e-300)) - std::log(lo_)) / (std::log(hi_) - std::log(lo_));
  } else {
    t = (value - lo_) / (hi_ - lo_);
  }
  return range_lo_ + t * (range_hi_ - range_lo_);
}

std::vector<double> linear_ticks(double lo, double hi, int count) {
  if (!(hi > lo) || count < 1) return {lo};
  const double raw = (hi - lo) / count;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  }
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> all;
  std::vector<double> decades;
  for (int e = static_cast<int>(std::floor(std::log10(lo))); e <= std::ceil(std::log10(hi)); ++e) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, e);
      if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9)) continue;
      all.push_back(v);
      if (m == 1.0) decades.push_back(v);
    }
  }
  return all.size() > 10 && decades.size() >= 2 ? decades : all;
}

std::string tick_label(double value) {
  if (value == 0) return "0";
  std::string s = fmt::format("{:.4g}", value);
  return s;
}

double text_width(std::string_view text, double font_size) {
  // Advances of a typical sans-serif face in em, by character class; multi-byte UTF-8 characters
  // count as one average glyph. Overestimating a little is safer than overlapping.
  double em = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) == 0x80) continue;
    if (c >= 0x80) {
      em += 0.65;
    } else if (std::string_view("iljtf.,:;'|!() ").find(static_cast<char>(c)) !=
               std::string_view::npos) {
      em += 0.34;
    } else if (c == 'm' || c == 'w' || c == 'M' || c == 'W') {
      em += 0.92;
    } else if (std::isupper(c) || c == '_') {
      em += 0.72;
    } else {
      em += 0.62;
    }
  }
  return em * font_size;
}

std::string fit_text(std::string_view text, double font_size, double max_px) {
  if (text_width(text, font_size) <= max_px) return std::string(text);
  std::string out(text);
  while (!out.empty() && text_width(out + "\u2026", font_size) > max_px) {
    out.pop_back();
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
    if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0x80)) out.pop_back();
  }
  return out + "\u2026";
}

}  // namespace ptxbench::report
