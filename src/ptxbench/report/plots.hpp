// The report's plots, built from ReportData: correct@t / verified@t curves over turns, speedup
// distributions, the error taxonomy per turn, context-level ablations and comparison forests.
// Every series keeps one colour and marker across all plots.
#pragma once
#include <string>
#include <vector>

#include "ptxbench/report/report_data.hpp"

namespace ptxbench::report {

enum class PlotSection { kCurves, kSpeedup, kErrors, kAblation, kComparison, kPublished };

struct Plot {
  std::string id;  // unique; the file plots/<id>.svg
  PlotSection section;
  std::string title;
  std::string svg;
  std::string empty;  // why nothing is drawn (also in the SVG), or "" when it has data
};

std::vector<Plot> build_plots(const ReportData& data);

}  // namespace ptxbench::report
