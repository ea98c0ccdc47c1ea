// The report of one or more runs: reads their trajectories, computes the metrics (docs/reports.md
// says what each one means and how its interval is computed) and writes summary.md, report.html
// (inline SVG and CSS, no scripts), leaderboard.html, plots/*.svg, tables/*.{csv,json} and the
// trajectory viewer view/ (one page per trajectory and per Fixit row, an index with filters).
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::report {

struct ReportOptions {
  std::filesystem::path out_dir;        // empty: <first run dir>/report
  std::vector<std::string> run_labels;  // one per run dir; empty: the directory names
  // The t of correct@t, verified@t, fast_p@t ...; empty: 1, 4, 8 ... up to the runs' turn budget.
  std::vector<int> turn_limits;
  std::vector<std::filesystem::path> published_files;  // the original research's aggregate CSVs
  std::vector<std::string> comparisons;           // "A:B" or "run=A:B", "model=A:B", "context=A:B"
  std::filesystem::path prices_file;              // empty: cost only where trajectories recorded it
  std::filesystem::path tasks_dir;                // empty: the built-in suite (for a missing split)
  std::vector<std::filesystem::path> fixit_dirs;  // Fixit folders whose rows the viewer shows
  bool viewer = true;                             // false: no view/ pages (tables and plots only)
  std::uint64_t bootstrap_seed = 20260101;
  int bootstrap_resamples = 2000;
  std::size_t progress_every = 500;                     // trajectory files between progress lines
  std::function<void(std::string_view line)> progress;  // null: silent
};

struct ReportPaths {
  std::filesystem::path out_dir;
  std::filesystem::path summary_markdown;     // summary.md
  std::filesystem::path html;                 // report.html
  std::filesystem::path json;                 // report.json: options, inputs, every table
  std::filesystem::path leaderboard;          // leaderboard.html
  std::filesystem::path viewer_index;         // view/index.html (empty without a viewer)
  std::size_t viewer_items = 0;               // pages in view/
  std::vector<std::filesystem::path> tables;  // tables/<name>.csv and tables/<name>.json
  std::vector<std::filesystem::path> plots;   // plots/<name>.svg
  std::size_t trajectories = 0;               // trajectories read
  std::vector<std::string> warnings;          // unreadable files and other skipped input
};

// Input problems (a missing run directory, a malformed published CSV, a comparison naming
// nothing in the runs) come back as an Error; the report is written only when there is none.
util::Expected<ReportPaths> write_report(const std::vector<std::filesystem::path>& run_dirs,
                                         const ReportOptions& options);

}  // namespace ptxbench::report
