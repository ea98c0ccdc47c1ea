// The trajectory viewer: view/index.html (every item, filters by kind, run, model, task, arch,
// context, split, verdict and outcome; the filter state lives in the URL's fragment, so a table
// cell can link to exactly its trajectories) and one static page per item under
// view/<kind>/<n>.html. Pages are written one at a time and the index holds one short row per
// item, so 10,000 trajectories make 10,000 small files and a list the page shows 100 at a time:
// the folder grows linearly and nothing is loaded that is not looked at. Static files only:
// it opens from disk (file://), with no server and nothing fetched from the network.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/report/view/index_item.hpp"

namespace ptxbench::report::view {

inline constexpr std::string_view kViewDir = "view";  // inside the report folder

class ViewerWriter {
 public:
  explicit ViewerWriter(std::filesystem::path report_dir);

  void add_trajectory(const agent::Trajectory& trajectory, std::string_view run_label);
  // Any kind of item: its page's HTML (view_html.hpp's item_page, with "../index.html" as the
  // way back) goes to view/<kind>/<n>.html.
  void add_item(IndexItem item, std::string_view page_html);

  // Writes view/index.html and view/index.js. Returns every file written, relative to the
  // report folder.
  std::vector<std::filesystem::path> finish();

  std::size_t items() const { return items_.size(); }

 private:
  std::filesystem::path report_dir_;
  std::vector<IndexItem> items_;
  std::vector<std::filesystem::path> written_;
  std::map<std::string, std::size_t> per_kind_;
};

// The link from a page in the report folder to the index filtered by the given fields (keys as
// the index's filter names: kind, run, model, task, arch, context, split, verdict, outcome);
// empty values and "all" are left out.
std::string index_link(const std::vector<std::pair<std::string, std::string>>& filters);

}  // namespace ptxbench::report::view
