// One row of the viewer's index (view/index.js): the page it links to, its title and one value
// per index column. Trajectory pages, Fixit row pages and any later kind of item (a study's
// cases) fill the same columns, so one index and one set of filters serves them all.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench::report::view {

// The columns every item fills ("" where it has no value), in index order.
enum class IndexColumn {
  kKind,  // "trajectory", "fixit", ...
  kRun,   // run label (Fixit: the run the failure was mined from)
  kModel,
  kTask,
  kArch,
  kContext,
  kSplit,
  kSample,
  kTurns,
  kVerdicts,  // every verdict of the item, space separated (filtered by token)
  kOutcome,   // trajectory: verified / correct / not run / failed; Fixit: verify status
  kBestSpeedup,
};
inline constexpr int kIndexColumns = 12;
std::string_view column_name(IndexColumn column);

struct IndexItem {
  std::string page;   // relative to view/: "t/12.html"
  std::string title;  // the link text
  std::vector<std::string> values = std::vector<std::string>(kIndexColumns);

  std::string& operator[](IndexColumn column) { return values[static_cast<int>(column)]; }
  const std::string& operator[](IndexColumn column) const {
    return values[static_cast<int>(column)];
  }
};

}  // namespace ptxbench::report::view
