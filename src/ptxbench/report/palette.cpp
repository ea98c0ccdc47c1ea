#include "ptxbench/report/palette.hpp"

#include <fmt/format.h>

namespace ptxbench::report {
namespace {

std::string pattern_id(std::string_view prefix, std::string_view colour) {
  std::string id = fmt::format("{}-hatch-", prefix);
  for (char c : colour) {
    if (c != '#') id += c;
  }
  return id;
}

}  // namespace

SeriesStyle series_style(std::size_t index) {
  constexpr std::array<Marker, 4> kMarkers{Marker::kCircle, Marker::kSquare, Marker::kTriangle,
                                           Marker::kDiamond};
  return {.colour = kOkabeIto[index % kOkabeIto.size()],
          .marker = kMarkers[index % kMarkers.size()]};
}

void draw_marker(SvgCanvas& canvas, Marker marker, Point at, double size, std::string_view colour,
                 std::string_view tooltip) {
  const double r = size / 2;
  const Stroke outline{.colour = "#ffffff", .width = 0.8};
  switch (marker) {
    case Marker::kCircle:
      canvas.circle(at, r, colour, &outline, tooltip);
      return;
    case Marker::kSquare:
      canvas.rect(at.x - r * 0.9, at.y - r * 0.9, r * 1.8, r * 1.8, colour, &outline, tooltip);
      return;
    case Marker::kTriangle:
    case Marker::kDiamond: {
      std::string points;
      const auto shape = marker == Marker::kTriangle
                             ? std::vector<Point>{{at.x, at.y - r * 1.1},
                                                  {at.x + r * 1.05, at.y + r * 0.75},
                                                  {at.x - r * 1.05, at.y + r * 0.75}}
                             : std::vector<Point>{{at.x, at.y - r * 1.2},
                                                  {at.x + r * 1.0, at.y},
                                                  {at.x, at.y + r * 1.2},
                                                  {at.x - r * 1.0, at.y}};
      for (const auto& p : shape) points += fmt::format("{:.2f},{:.2f} ", p.x, p.y);
      std::string title =
          tooltip.empty() ? "" : fmt::format("<title>{}</title>", xml_escape(tooltip));
      canvas.raw(
          fmt::format("<polygon points=\"{}\" fill=\"{}\" stroke=\"#ffffff\" "
                      "stroke-width=\"0.8\">{}</polygon>\n",
                      points, xml_escape(colour), title));
      return;
    }
  }
}

FillStyle outcome_fill(const Outcome& outcome) {
  if (!outcome.verdict) return {.colour = "#E4E4E4"};
  switch (*outcome.verdict) {
    case eval::Verdict::kPassed:
      return {.colour = "#009E73"};
    case eval::Verdict::kInstructionsNotExecuted:
      return {.colour = "#56B4E9"};
    case eval::Verdict::kIncorrectNumerical:
      return {.colour = "#CC79A7"};
    case eval::Verdict::kInputsModified:
      return {.colour = "#CC79A7", .hatched = true};
    case eval::Verdict::kIncorrectShape:
      return {.colour = "#0072B2"};
    case eval::Verdict::kTimeout:
      return {.colour = "#F0E442"};
    case eval::Verdict::kRuntimeError:
      return {.colour = "#D55E00"};
    case eval::Verdict::kSanitizerError:
      return {.colour = "#D55E00", .hatched = true};
    case eval::Verdict::kCompileError:
      return {.colour = "#E69F00"};
    case eval::Verdict::kInstructionsAbsent:
      return {.colour = "#56B4E9", .hatched = true};
    case eval::Verdict::kForbidden:
      return {.colour = "#000000"};
    case eval::Verdict::kNoCode:
      return {.colour = "#999999"};
    case eval::Verdict::kNotRun:
      return {.colour = "#999999", .hatched = true};
    case eval::Verdict::kInternalError:
      return {.colour = "#555555", .hatched = true};
  }
  return {.colour = "#999999"};
}

std::string hatch_pattern_def(std::string_view id_prefix, const FillStyle& fill) {
  if (!fill.hatched) return {};
  // A pale tint of the hue under dark diagonal lines of the same hue: reads as "a kind of" the
  // solid category and differs from it in luminance as well as texture.
  return fmt::format(
      "<pattern id=\"{}\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" "
      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#ffffff\"/>"
      "<rect width=\"6\" height=\"6\" fill=\"{}\" fill-opacity=\"0.35\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"{}\" stroke-width=\"3\"/></pattern>\n",
      pattern_id(id_prefix, fill.colour), fill.colour, fill.colour);
}

std::string fill_reference(std::string_view id_prefix, const FillStyle& fill) {
  if (!fill.hatched) return std::string(fill.colour);
  return fmt::format("url(#{})", pattern_id(id_prefix, fill.colour));
}

}  // namespace ptxbench::report
