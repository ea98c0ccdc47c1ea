// Colours and marks of the plots. Series use the Okabe-Ito palette (distinguishable with the
// common colour-vision deficiencies) with a marker shape and dash per series as a second cue;
// outcomes add hatching where two categories share a hue.
#pragma once
#include <array>
#include <string>
#include <string_view>

#include "ptxbench/report/outcome.hpp"
#include "ptxbench/report/svg.hpp"

namespace ptxbench::report {

// Okabe & Ito (2008), "Color Universal Design"; yellow last: it is faint on white.
inline constexpr std::array<std::string_view, 8> kOkabeIto{
    "#0072B2",  // blue
    "#E69F00",  // orange
    "#009E73",  // bluish green
    "#D55E00",  // vermillion
    "#CC79A7",  // reddish purple
    "#56B4E9",  // sky blue
    "#000000",  // black
    "#F0E442",  // yellow
};

enum class Marker { kCircle, kSquare, kTriangle, kDiamond };

struct SeriesStyle {
  std::string_view colour;
  Marker marker;
};
SeriesStyle series_style(std::size_t index);

// Draws the marker centred at `at`; tooltip as in SvgCanvas.
void draw_marker(SvgCanvas& canvas, Marker marker, Point at, double size, std::string_view colour,
                 std::string_view tooltip = {});

struct FillStyle {
  std::string_view colour;
  bool hatched = false;  // diagonal lines over the colour
};
FillStyle outcome_fill(const Outcome& outcome);

// <pattern> definitions for hatched fills; fill_reference() names one ("url(#...)") or returns
// the plain colour.
std::string hatch_pattern_def(std::string_view id_prefix, const FillStyle& fill);
std::string fill_reference(std::string_view id_prefix, const FillStyle& fill);

}  // namespace ptxbench::report
