#include "ptxbench/report/view/viewer.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>

#include <nlohmann/json.hpp>

#include "ptxbench/report/svg.hpp"
#include "ptxbench/report/view/trajectory_page.hpp"
#include "ptxbench/report/view/view_html.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::report::view {
namespace {
namespace fs = std::filesystem;

struct Filter {
  std::string_view key;
  IndexColumn column;
  bool token = false;  // the column holds several space-separated values
};

constexpr std::array<Filter, 9> kFilters{{{"kind", IndexColumn::kKind},
                                          {"run", IndexColumn::kRun},
                                          {"model", IndexColumn::kModel},
                                          {"task", IndexColumn::kTask},
                                          {"arch", IndexColumn::kArch},
                                          {"context", IndexColumn::kContext},
                                          {"split", IndexColumn::kSplit},
                                          {"verdict", IndexColumn::kVerdicts, true},
                                          {"outcome", IndexColumn::kOutcome}}};

std::string percent_encode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

// JSON for a <script src>: '<' written as \u003c so no text can close a script element, and
// U+2028/2029 escaped for older parsers.
std::string script_safe_json(const nlohmann::json& value) {
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<') {
      out += "\\u003c";
    } else if (text.compare(i, 3, "\xE2\x80\xA8") == 0 || text.compare(i, 3, "\xE2\x80\xA9") == 0) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string index_page(std::size_t items) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>ptxbench viewer</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n"
      "<p class=\"back\"><a href=\"../report.html\">&larr; report</a> · "
      "<a href=\"../leaderboard.html\">leaderboard</a></p>\n"
      "<h1>Trajectories and rows</h1>\n"
      "<p class=\"facts\">{} items. Choose filters, or follow a link from a table cell; the "
      "address keeps the filters, so it can be bookmarked. Each item opens its own page.</p>\n"
      "<form class=\"filters\" id=\"filters\" onsubmit=\"return false\"></form>\n"
      "<p class=\"facts\" id=\"count\">loading…</p>\n"
      "<div class=\"table-wrap\"><table><thead><tr id=\"head\"></tr></thead>"
      "<tbody id=\"rows\"></tbody></table></div>\n<p id=\"pager\"></p>\n"
      "<noscript><p class=\"note\">The list needs JavaScript; every item is also a page under "
      "view/&lt;kind&gt;/.</p></noscript>\n"
      "<script src=\"index.js\"></script>\n<script src=\"viewer.js\"></script>\n"
      "</main>\n</body>\n</html>\n",
      style(), items);
}

}  // namespace

std::string_view column_name(IndexColumn column) {
  static constexpr std::array<std::string_view, kIndexColumns> kNames{
      "kind",  "run",    "model", "task",     "arch",    "context",
      "split", "sample", "turns", "verdicts", "outcome", "best_speedup"};
  return kNames[static_cast<int>(column)];
}

ViewerWriter::ViewerWriter(fs::path report_dir) : report_dir_(std::move(report_dir)) {}

void ViewerWriter::add_item(IndexItem item, std::string_view page_html) {
  const std::string kind = item[IndexColumn::kKind];
  const std::size_t n = ++per_kind_[kind];
  item.page = fmt::format("{}/{}.html", kind, n);
  const fs::path relative = fs::path(kViewDir) / item.page;
  util::write_file_atomic(report_dir_ / relative, page_html);
  written_.push_back(relative);
  items_.push_back(std::move(item));
}

void ViewerWriter::add_trajectory(const agent::Trajectory& trajectory, std::string_view run_label) {
  add_item(trajectory_item(trajectory, run_label),
           trajectory_page(trajectory, run_label, "../index.html"));
}

std::vector<fs::path> ViewerWriter::finish() {
  nlohmann::json columns = nlohmann::json::array();
  for (int i = 0; i < kIndexColumns; ++i) {
    columns.push_back(std::string(column_name(static_cast<IndexColumn>(i))));
  }
  nlohmann::json filters = nlohmann::json::array();
  for (const auto& f : kFilters) {
    filters.push_back({{"key", std::string(f.key)},
                       {"column", std::string(column_name(f.column))},
                       {"token", f.token}});
  }
  nlohmann::json items = nlohmann::json::array();
  for (const auto& item : items_) {
    nlohmann::json row = nlohmann::json::array({item.page, item.title});
    for (const auto& value : item.values) row.push_back(value);
    items.push_back(std::move(row));
  }
  const nlohmann::json data{{"columns", columns}, {"filters", filters}, {"items", items}};
  auto write = [this](std::string_view name, std::string_view content) {
    const fs::path relative = fs::path(kViewDir) / name;
    util::write_file_atomic(report_dir_ / relative, content);
    written_.push_back(relative);
  };
  write("index.js", "window.PTXBENCH_VIEW = " + script_safe_json(data) + ";\n");
  write("viewer.js", index_script());
  write("index.html", index_page(items_.size()));
  return written_;
}

std::string index_link(const std::vector<std::pair<std::string, std::string>>& filters) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : filters) {
    if (value.empty() || value == "all") continue;
    parts.push_back(percent_encode(key) + "=" + percent_encode(value));
  }
  return fmt::format("{}/index.html#{}", kViewDir, fmt::join(parts, "&"));
}

}  // namespace ptxbench::report::view
