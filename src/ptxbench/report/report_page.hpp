// The two human-readable forms of a report: summary.md (Markdown tables, plots linked from
// plots/) and report.html (inline CSS and SVG, no scripts, no fonts or other files fetched, so
// it opens from disk and prints). With a viewer, every table cell that counts trajectories links
// to them in view/index.html, and the page links to leaderboard.html.
#pragma once
#include <string>
#include <vector>

#include "ptxbench/report/plots.hpp"
#include "ptxbench/report/table.hpp"

namespace ptxbench::report {

struct ReportPage {
  std::string title = "ptxbench report";
  std::vector<std::string> facts;     // one line each: inputs, generation time, version
  std::vector<std::string> warnings;  // skipped files, unmatched comparison cells
  std::vector<std::string> banners;   // shown above everything: what the numbers cannot say
  std::vector<Table> tables;
  std::vector<Plot> plots;
  bool viewer = false;  // view/ and leaderboard.html were written beside the page
  int bootstrap_resamples = 0;
  unsigned long long bootstrap_seed = 0;
};

std::string render_html(const ReportPage& page);
std::string render_markdown(const ReportPage& page);

}  // namespace ptxbench::report
