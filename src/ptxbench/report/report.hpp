// The report of one or more runs: reads their trajectories, computes the metrics (docs/reports.md
// says what each one means and how its interval is computed) and writes summary.md, report.html
// (self-contained: inline SVG and CSS, no scripts), plots/*.svg and tables/*.{csv,json}.
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
  std::vector<std::string> comparisons;  // "A:B" or "run=A:B", "model=A:B", "context=A:B"
  std::filesystem::path prices_file;     // empty: cost only where trajectories recorded it
  std::filesystem::path tasks_dir;       // empty: the built-in suite (for a missing split)
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
