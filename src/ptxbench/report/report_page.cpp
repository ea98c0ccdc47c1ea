#include "ptxbench/report/report_page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <optional>
#include <utility>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/report/svg.hpp"
#include "ptxbench/report/view/viewer.hpp"
#include "ptxbench/util/generated_text.hpp"

namespace ptxbench::report {
namespace {

constexpr std::size_t kOpenTableRows = 40;  // longer tables start folded on the page
constexpr std::size_t kShownWarnings = 50;

struct Section {
  std::string_view id;
  std::string_view title;
  std::optional<PlotSection> plots;
  std::vector<std::string_view> tables;
};

const std::vector<Section>& sections() {
  static const std::vector<Section> kSections{
      {"runs", "Runs", std::nullopt, {"runs"}},
      {"correctness",
       "Correctness and verification",
       PlotSection::kCurves,
       {"replies", "correctness", "splits"}},
      {"speed", "Speed", PlotSection::kSpeedup, {"speedup"}},
      {"comparisons", "Comparisons", PlotSection::kComparison, {"comparison"}},
      {"ablation", "Context-level ablation", PlotSection::kAblation, {}},
      {"errors", "Errors", PlotSection::kErrors, {"error_taxonomy", "compile_errors"}},
      {"usage", "Tokens, latency and cost", std::nullopt, {"usage_by_turn", "usage_totals"}},
      {"judging", "Judging cost and caches", std::nullopt, {"judging"}},
      {"published", "Published results", PlotSection::kPublished, {"published_side_by_side"}},
  };
  return kSections;
}

// How every number on the page is made; docs/reports.md says the same at length.
std::vector<std::pair<std::string, std::string>> method_notes(const ReportPage& page) {
  return {
      {"correct@t",
       "share of trajectories with a correct kernel (verdict PASSED or "
       "INSTRUCTIONS_NOT_EXECUTED) in one of their first t turns. A trajectory with "
       "fewer turns keeps its last state."},
      {"verified@t",
       "strict: share with a PASSED kernel within t turns: correct, and every "
       "requested instruction family executed with a substantial share of the work."},
      {"verified_any@t",
       "the original research's rule: correct, and any requested family "
       "executed (dynamic SASS count > 0)."},
      {"compiled", "share of trajectories with a candidate that compiled within t turns."},
      {"best speedup",
       "per trajectory: the largest headline-workload speedup (vendor baseline "
       "time / kernel time) among its correct turns within t. Then the maximum "
       "and median over trajectories; fast_p is the share of all trajectories "
       "whose best speedup exceeds p."},
      {"speed of light",
       "beside the speedup: per trajectory, the largest headline-workload fraction of the "
       "analytic bound among its correct turns within t (task FLOPs at the dense BF16 peak at "
       "the measured SM clock, or bytes at the HBM bandwidth, over the kernel's time; 1 = at "
       "the bound), then the median over trajectories; not measured where no correct turn "
       "carries a bound."},
      {"intervals",
       fmt::format("rates: 95% Wilson score interval with k/n. Speedups: 95% percentile "
                   "bootstrap over trajectories, {} resamples, seeded from {} and the group's "
                   "coordinates (reproducible). Differences of rates: Newcombe's hybrid score "
                   "interval; of medians: bootstrap with both sides resampled.",
                   page.bootstrap_resamples, page.bootstrap_seed)},
      {"NOT_RUN",
       "compiled and statically checked, but the GPU stages did not run on that "
       "machine: never counted as correct. A trajectory whose first turns were judged and a "
       "later one was NOT_RUN keeps the state of its last judged turn at later turn limits "
       "(counted in the column carried); one with no judged turn is not measured."},
  };
}

std::string_view kStyle = R"css(
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #fafafa; color: #1d1d1d;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1400px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 26px; margin: 0 0 6px; }
h2 { font-size: 20px; margin: 36px 0 10px; padding-bottom: 4px; border-bottom: 2px solid #d9d9d9; }
h3 { font-size: 15px; margin: 22px 0 6px; }
p.facts { margin: 2px 0; color: #555; }
nav { margin: 14px 0 8px; display: flex; flex-wrap: wrap; gap: 6px 14px; }
nav a { color: #0060a0; text-decoration: none; }
nav a:hover { text-decoration: underline; }
.desc { color: #444; max-width: 980px; margin: 4px 0 10px; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(600px, 100%), 1fr)); gap: 16px; }
figure { margin: 0; background: #fff; border: 1px solid #e2e2e2; border-radius: 6px; padding: 6px; }
svg.chart { display: block; width: 100%; max-width: 900px; height: auto; margin: 0 auto; }
.table-wrap { overflow-x: auto; background: #fff; border: 1px solid #e2e2e2; border-radius: 6px; }
table { border-collapse: collapse; font-size: 12.5px; width: 100%; }
th, td { padding: 3px 6px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
td .v, td .ci, td .n { white-space: nowrap; }
th { white-space: normal; overflow-wrap: anywhere; min-width: 3em; }
td { overflow-wrap: break-word; }
a.cell { color: inherit; text-decoration: none; display: block; }
a.cell:hover { background: #e8f1fb; text-decoration: underline; }
p.empty-plots { color: #555; font-style: italic; margin: 4px 0 10px; }
th { background: #f1f3f5; position: sticky; top: 0; font-weight: 600; cursor: help; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fbfbfc; }
td.empty { color: #777; font-style: italic; }
.ci { color: #666; }
.n { color: #888; font-size: 11px; }
details { margin: 6px 0 12px; }
summary { cursor: pointer; color: #0060a0; margin: 4px 0; }
.banner { background: #fdecea; border: 1px solid #e8a09a; border-radius: 6px; padding: 8px 14px; font-weight: bold; }
.warnings { background: #fff8e5; border: 1px solid #f0d58c; border-radius: 6px; padding: 8px 14px; }
dl.method dt { font-weight: 600; margin-top: 8px; }
dl.method dd { margin: 2px 0 0 18px; max-width: 980px; }
code { background: #f1f1f1; padding: 1px 4px; border-radius: 3px; }
@media print { figure, .table-wrap { break-inside: avoid; } nav { display: none; } }
)css";

std::vector<const Table*> tables_of(const ReportPage& page, const Section& section,
                                    bool page_only) {
  std::vector<const Table*> out;
  for (auto name : section.tables) {
    for (const auto& table : page.tables) {
      if (table.name == name && (table.on_page || !page_only)) out.push_back(&table);
    }
  }
  return out;
}

std::vector<const Plot*> plots_of(const ReportPage& page, const Section& section) {
  std::vector<const Plot*> out;
  if (!section.plots) return out;
  for (const auto& plot : page.plots) {
    if (plot.section == *section.plots) out.push_back(&plot);
  }
  return out;
}

bool has_content(const ReportPage& page, const Section& section) {
  return !tables_of(page, section, true).empty() || !plots_of(page, section).empty();
}

// The index filters that select the trajectories behind a cell: the row's key columns, and for a
// column named after a verdict (the error taxonomy), that verdict. Published rows link nowhere.
CellLink viewer_link(const Table& table) {
  static const std::vector<std::string> kKeys{"run", "model", "task", "arch", "context", "split"};
  std::vector<std::pair<std::string, std::size_t>> keys;
  std::optional<std::size_t> source;
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    const auto& name = table.columns[i].name;
    if (std::find(kKeys.begin(), kKeys.end(), name) != kKeys.end()) keys.emplace_back(name, i);
    if (name == "source") source = i;
  }
  if (keys.empty()) return nullptr;
  return [&table, keys, source](std::size_t r, std::size_t c) -> std::string {
    const auto& row = table.rows[r];
    auto text_at = [&row](std::size_t i) {
      const auto* t = row[i].text();
      return t ? *t : std::string();
    };
    if (source && text_at(*source) == "published") return {};
    std::vector<std::pair<std::string, std::string>> filters{{"kind", "trajectory"}};
    for (const auto& [key, i] : keys) {
      const std::string value = text_at(i);
      if (value != "unknown") filters.emplace_back(key, value);
    }
    const auto& column = table.columns[c].name;
    if (eval::parse_verdict(column)) filters.emplace_back("verdict", column);
    return view::index_link(filters);
  };
}

std::string html_table(const Table& table, bool viewer) {
  const CellLink link = viewer ? viewer_link(table) : nullptr;
  std::string out =
      fmt::format("<h3 id=\"table-{}\">{}</h3>\n<p class=\"desc\">{}</p>\n", xml_escape(table.name),
                  xml_escape(table.title), xml_escape(table.description));
  if (table.rows.size() > kOpenTableRows) {
    out += fmt::format("<details><summary>{} rows (also tables/{}.csv)</summary>\n{}</details>\n",
                       table.rows.size(), xml_escape(table.name), to_html(table, link));
  } else {
    out += to_html(table, link);
  }
  return out;
}

// Plots with data as figures; those with nothing to draw as one line per reason, so a report
// without GPU stages is not a wall of empty frames.
std::string plots_html(const std::vector<const Plot*>& plots) {
  std::string figures;
  std::vector<std::pair<std::string, std::vector<std::string>>> empty;  // reason -> titles
  for (const auto* plot : plots) {
    if (plot->empty.empty()) {
      figures += fmt::format("<figure>\n{}</figure>\n", plot->svg);
      continue;
    }
    auto found = std::find_if(empty.begin(), empty.end(),
                              [plot](const auto& e) { return e.first == plot->empty; });
    if (found == empty.end()) {
      empty.emplace_back(plot->empty, std::vector<std::string>{});
      found = std::prev(empty.end());
    }
    found->second.push_back(plot->title);
  }
  std::string out;
  for (const auto& [reason, titles] : empty) {
    out += fmt::format(
        "<details class=\"empty-plots\"><summary>Nothing to draw in {} plot(s): {}</summary>"
        "<p class=\"empty-plots\">{}.</p></details>\n",
        titles.size(), xml_escape(reason), xml_escape(fmt::format("{}", fmt::join(titles, "; "))));
  }
  if (!figures.empty()) out += "<div class=\"figures\">\n" + figures + "</div>\n";
  return out;
}

}  // namespace

std::string render_html(const ReportPage& page) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n<h1>{}</h1>\n",
      xml_escape(page.title), kStyle, xml_escape(page.title));
  for (const auto& fact : page.facts)
    out += fmt::format("<p class=\"facts\">{}</p>\n", xml_escape(fact));
  out += "<nav>";
  for (const auto& section : sections()) {
    if (has_content(page, section)) {
      out += fmt::format("<a href=\"#{}\">{}</a>", section.id, xml_escape(section.title));
    }
  }
  out += "<a href=\"#method\">Method</a>";
  if (page.viewer) {
    out += fmt::format(
        "<a href=\"{}\">Trajectory viewer</a><a href=\"leaderboard.html\">"
        "Leaderboard</a>",
        view::index_link({}));
  }
  out += "</nav>\n";
  for (const auto& banner : page.banners)
    out += fmt::format("<p class=\"banner\">{}</p>\n", xml_escape(banner));
  if (!page.warnings.empty()) {
    out += fmt::format(
        "<details class=\"warnings\"><summary>{} warning(s) while reading</summary><ul>\n",
        page.warnings.size());
    for (std::size_t i = 0; i < page.warnings.size() && i < kShownWarnings; ++i) {
      out += fmt::format("<li>{}</li>\n", xml_escape(page.warnings[i]));
    }
    if (page.warnings.size() > kShownWarnings) {
      out += fmt::format("<li>… and {} more (report.json lists all)</li>\n",
                         page.warnings.size() - kShownWarnings);
    }
    out += "</ul></details>\n";
  }
  for (const auto& section : sections()) {
    if (!has_content(page, section)) continue;
    out += fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n", section.id, xml_escape(section.title));
    out += plots_html(plots_of(page, section));
    for (const auto* table : tables_of(page, section, true)) out += html_table(*table, page.viewer);
    out += "</section>\n";
  }
  out += "<section id=\"method\">\n<h2>Method</h2>\n<dl class=\"method\">\n";
  for (const auto& [term, text] : method_notes(page)) {
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", xml_escape(term), xml_escape(text));
  }
  out +=
      "</dl>\n<p class=\"desc\">Every table is also in <code>tables/</code> as CSV and JSON, "
      "every plot in <code>plots/</code> as SVG; <code>report.json</code> holds all of them.</p>\n"
      "</section>\n</main>\n</body>\n</html>\n";
  return out;
}

std::string render_markdown(const ReportPage& page) {
  // Facts, banners and warnings carry run labels, model names and paths: text, never markup.
  std::string out = fmt::format("# {}\n\n", util::markdown_inline(page.title));
  for (const auto& fact : page.facts) out += util::markdown_inline(fact) + "  \n";
  for (const auto& banner : page.banners)
    out += fmt::format("\n> **{}**\n", util::markdown_inline(banner));
  if (!page.warnings.empty()) {
    out += fmt::format("\n**{} warning(s) while reading** (report.json lists all):\n\n",
                       page.warnings.size());
    for (std::size_t i = 0; i < page.warnings.size() && i < kShownWarnings; ++i) {
      out += "- " + util::markdown_inline(page.warnings[i]) + "\n";
    }
  }
  for (const auto& section : sections()) {
    if (!has_content(page, section)) continue;
    out += fmt::format("\n## {}\n", section.title);
    std::vector<std::string> empty;
    for (const auto* plot : plots_of(page, section)) {
      if (!plot->empty.empty()) {
        empty.push_back(util::markdown_inline(fmt::format("{} ({})", plot->title, plot->empty)));
        continue;
      }
      out += fmt::format("\n![{}](plots/{}.svg)\n", util::markdown_inline(plot->title), plot->id);
    }
    if (!empty.empty()) {
      out += fmt::format("\n*Nothing to draw in {} plot(s):* {}.\n", empty.size(),
                         fmt::join(empty, "; "));
    }
    for (const auto* table : tables_of(page, section, true)) {
      out += fmt::format("\n### {}\n\n{}\n\n{}", table->title, table->description,
                         to_markdown(*table));
    }
  }
  out += "\n## Method\n\n";
  for (const auto& [term, text] : method_notes(page))
    out += fmt::format("- **{}**: {}\n", term, text);
  out += "\nEvery table is also in `tables/` as CSV and JSON, every plot in `plots/` as SVG.\n";
  if (page.viewer) {
    out +=
        "Every trajectory is a page of the viewer, `view/index.html`; the leaderboard is "
        "`leaderboard.html`.\n";
  }
  return out;
}

}  // namespace ptxbench::report
