// The report in a real browser: `ptxbench report` run as a user runs it, then its pages opened in
// headless Chromium. report.html must log no console errors and no blocked or failed loads, show
// every plot that has something to draw, and fit its tables into a 1400-px window; a table cell
// must lead to its trajectories in the viewer (the index's script ran and filtered them) and on
// to a trajectory's page; a model's markup must be shown as text and never run. Screenshots of
// the main pages are left to look at (PTXBENCH_REPORT_SCREENSHOT_DIR keeps them). Every plot
// must also be well-formed XML, since plots/*.svg are meant for papers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"
#include "trajectory_builder.hpp"

namespace ptxbench::report {
namespace {
namespace fs = std::filesystem;

std::optional<fs::path> find_chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    if (auto path = util::find_in_path(name)) return path;
  }
  return std::nullopt;
}

// The value of the first attribute `name` after `after` in the DOM text.
std::string attribute_after(const std::string& dom, const std::string& after,
                            const std::string& name) {
  auto at = dom.find(after);
  if (at == std::string::npos) return {};
  at = dom.find(name + "=\"", at);
  if (at == std::string::npos) return {};
  at += name.size() + 2;
  return dom.substr(at, dom.find('"', at) - at);
}

std::string unescape_amp(std::string text) {
  for (auto at = text.find("&amp;"); at != std::string::npos; at = text.find("&amp;", at + 1)) {
    text.replace(at, 5, "&");
  }
  return text;
}

class ReportInBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    if (!chromium_) GTEST_SKIP() << "no chromium in PATH (Debian package: chromium)";
  }

  util::ProcessResult browse_url(std::vector<std::string> flags, const std::string& url) {
    std::vector<std::string> argv{
        chromium_->string(), "--headless",
        "--disable-gpu",     "--no-sandbox",
        "--no-first-run",    "--user-data-dir=" + (work_.path() / "profile").string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back(url);
    return runner_.run({.argv = argv,
                        .timeout = std::chrono::seconds(90),
                        .env = {{"HOME", work_.path().string()}}});
  }
  util::ProcessResult browse(std::vector<std::string> flags, const fs::path& file,
                             const std::string& fragment = {}) {
    return browse_url(std::move(flags), "file://" + fs::absolute(file).string() + fragment);
  }
  std::string dom_of(const fs::path& file, const std::string& fragment = {},
                     const std::string& window = "1400,900") {
    auto dom = browse({"--window-size=" + window, "--dump-dom"}, file, fragment);
    EXPECT_TRUE(dom.succeeded()) << dom.describe_end() << "\n" << dom.stderr_text;
    return dom.stdout_text;
  }
  // A screenshot, with the browser's log on stderr: no console messages, no failed loads.
  void screenshot(const fs::path& file, const std::string& name, const std::string& window,
                  const std::string& fragment = {}) {
    const char* keep = std::getenv("PTXBENCH_REPORT_SCREENSHOT_DIR");
    const fs::path shot = (keep && *keep ? fs::path(keep) : work_.path()) / name;
    fs::create_directories(shot.parent_path());
    auto run = browse({"--enable-logging=stderr", "--v=0", "--hide-scrollbars",
                       "--window-size=" + window, "--screenshot=" + shot.string()},
                      file, fragment);
    ASSERT_TRUE(run.succeeded()) << run.describe_end() << "\n" << run.stderr_text;
    ASSERT_TRUE(fs::is_regular_file(shot)) << shot;
    EXPECT_GT(fs::file_size(shot), 20'000u) << name << ": a page, not a blank one";
    for (const char* sign : {"CONSOLE", "Uncaught", "net::ERR", "Refused to", "Failed to load"}) {
      EXPECT_EQ(run.stderr_text.find(sign), std::string::npos)
          << name << ": " << sign << " in the browser log:\n"
          << run.stderr_text;
    }
  }

  fs::path write_report(const std::vector<std::string>& extra) {
    const auto dirs = testing::write_sample_runs(work_.path() / "runs");
    const fs::path out = work_.path() / "report";
    std::vector<std::string> argv{PTXBENCH_EXECUTABLE,
                                  "report",
                                  "base=" + dirs[0].string(),
                                  "tuned=" + dirs[1].string(),
                                  "--out",
                                  out.string(),
                                  "--bootstrap",
                                  "300"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto command = runner_.run({.argv = argv, .timeout = std::chrono::seconds(120)});
    EXPECT_TRUE(command.succeeded()) << command.describe_end() << "\n" << command.stderr_text;
    EXPECT_NE(command.stdout_text.find("viewer:"), std::string::npos) << command.stdout_text;
    EXPECT_NE(command.stderr_text.find("report: read 54 trajectories"), std::string::npos)
        << command.stderr_text;
    EXPECT_NE(command.stdout_text.find("leaderboard: "), std::string::npos);
    return out;
  }

  util::SystemProcessRunner runner_;
  util::TempDir work_;
  std::optional<fs::path> chromium_;
};

TEST_F(ReportInBrowser, CommandWritesAPageThatRendersCleanly) {
  std::vector<std::string> extra{"--compare", "context=none:isa", "--compare", "base:tuned"};
  if (auto published = testing::shared_published_dir()) {
    extra.push_back("--published");
    for (const char* f :
         {"correctness_rate_by_release_date.csv",
          "arch_instruction_correctness_by_release_date.csv", "best_speedup_by_release_date.csv"}) {
      extra.push_back((*published / f).string());
    }
  }
  const fs::path out = write_report(extra);
  const auto report = nlohmann::json::parse(*util::read_file(out / "report.json"));
  std::vector<std::string> plot_ids;
  std::vector<std::string> drawn;
  for (const auto& plot : report["plots"]) {
    plot_ids.push_back(plot["id"].get<std::string>());
    if (plot["empty"].get<std::string>().empty()) drawn.push_back(plot_ids.back());
  }
  ASSERT_GE(drawn.size(), 8u);

  // The DOM as the browser built it: every plot with something to draw is there as an <svg>.
  const std::string dom = dom_of(out / "report.html");
  for (const auto& id : drawn) {
    EXPECT_NE(dom.find("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" + id + "\""),
              std::string::npos)
        << id;
  }
  screenshot(out / "report.html", "report.png", "1400,3000");
  screenshot(out / "leaderboard.html", "leaderboard.png", "1400,900");

  // The leaderboard sorts: a click on the header "correct@1" orders the rows by it, largest first.
  std::string board = *util::read_file(out / "leaderboard.html");
  board.insert(board.rfind("</body>"), R"(<script>
const heads = [...document.querySelectorAll("#leaderboard th")];
const n = heads.findIndex(th => th.textContent === "correct@1");
heads[n].click();
document.body.dataset.sorted = [...document.querySelectorAll("#leaderboard tbody tr")]
    .map(r => parseFloat(r.cells[n].textContent)).join(",");
</script>)");
  util::write_file_atomic(out / "sort-check.html", board);
  const std::string sorted =
      attribute_after(dom_of(out / "sort-check.html"), "<body", "data-sorted");
  std::vector<double> values;
  for (std::size_t at = 0; at < sorted.size();) {
    const auto comma = std::min(sorted.find(',', at), sorted.size());
    values.push_back(std::stod(sorted.substr(at, comma - at)));
    at = comma + 1;
  }
  ASSERT_GE(values.size(), 3u) << sorted;
  EXPECT_TRUE(std::is_sorted(values.rbegin(), values.rend())) << sorted;

  // Every standalone plot is well-formed XML: inline them into one XHTML document, which the
  // browser parses with its XML parser and reports a <parsererror> for on any mistake.
  std::string xhtml = "<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>\n";
  for (const auto& id : plot_ids) {
    auto svg = util::read_file(out / "plots" / (id + ".svg"));
    ASSERT_TRUE(svg) << id;
    xhtml += svg->substr(svg->find("<svg"));
  }
  xhtml += "</body></html>\n";
  util::write_file_atomic(work_.path() / "plots.xhtml", xhtml);
  auto parsed = browse({"--dump-dom"}, work_.path() / "plots.xhtml");
  ASSERT_TRUE(parsed.succeeded()) << parsed.describe_end();
  EXPECT_EQ(parsed.stdout_text.find("parsererror"), std::string::npos)
      << parsed.stdout_text.substr(0, 2000);
  EXPECT_NE(parsed.stdout_text.find("<svg"), std::string::npos);

  // Every table fits a 1400-px window: a copy of the page with every fold opened measures each
  // table's box against its content and writes the names of those that overflow into the DOM.
  std::string page = *util::read_file(out / "report.html");
  page.insert(page.rfind("</body>"), R"(<script>
document.querySelectorAll("details").forEach(d => d.open = true);
const wide = [];
document.querySelectorAll(".table-wrap").forEach(w => {
  if (w.scrollWidth > w.clientWidth + 1) {
    let h = w.previousElementSibling;
    while (h && h.tagName !== "H3") h = h.previousElementSibling;
    if (!h) h = w.parentElement.previousElementSibling;
    wide.push((h ? h.id : "?") + ":" + w.scrollWidth);
  }
});
document.body.dataset.overflow = wide.join(" ") || "none";
</script>)");
  util::write_file_atomic(out / "fit-check.html", page);
  const std::string fit = dom_of(out / "fit-check.html");
  EXPECT_NE(fit.find("data-overflow=\"none\""), std::string::npos)
      << attribute_after(fit, "<body", "data-overflow");
}

// From a cell of the correctness table, one click to its trajectories, one more to a
// trajectory's page, checked through the DOM after the index's script ran.
TEST_F(ReportInBrowser, ATableCellLeadsToItsTrajectories) {
  testing::write_sample_fixit(work_.path() / "fixit");
  const fs::path out = write_report({"--fixit", (work_.path() / "fixit").string()});
  const std::string html = *util::read_file(out / "report.html");
  const std::string href = unescape_amp(attribute_after(html, "id=\"table-correctness\"", "href"));
  ASSERT_TRUE(href.starts_with("view/index.html#kind=trajectory&run=")) << href;
  const auto hash = href.find('#');

  const std::string index = dom_of(out / href.substr(0, hash), href.substr(hash));
  std::smatch count;
  ASSERT_TRUE(std::regex_search(index, count, std::regex(R"(id="count">(\d+) of 55 items<)")))
      << index.substr(0, 3000);
  EXPECT_EQ(count[1], "6") << "one cell: 6 samples of one run, model, task, arch and context";
  EXPECT_NE(index.find("<option value=\"fixit\">fixit</option>"), std::string::npos)
      << "Fixit rows are items of the same index";
  const std::string page = attribute_after(index, "class=\"item\"", "href");
  ASSERT_TRUE(page.starts_with("trajectory/")) << page;
  screenshot(out / "view" / "index.html", "viewer-index.png", "1400,900", href.substr(hash));

  const std::string trajectory = dom_of(out / "view" / page);
  EXPECT_NE(trajectory.find("id=\"turn-1\""), std::string::npos);
  EXPECT_NE(trajectory.find("Prompt: context level <b>"), std::string::npos);
  EXPECT_NE(trajectory.find("Feedback sent to the model"), std::string::npos);
  EXPECT_NE(trajectory.find("<th>stage</th><th>status</th>"), std::string::npos);
  screenshot(out / "view" / page, "trajectory.png", "1400,2400");

  // The Fixit row: the index filtered to kind=fixit, then its page.
  const std::string fixit_index = dom_of(out / "view" / "index.html", "#kind=fixit");
  EXPECT_NE(fixit_index.find("id=\"count\">1 of 55 items<"), std::string::npos);
  const std::string fixit_href = attribute_after(fixit_index, "class=\"item\"", "href");
  ASSERT_EQ(fixit_href, "fixit/1.html");
  const std::string fixit = dom_of(out / "view" / fixit_href);
  EXPECT_NE(fixit.find("<del>-__global__ void k() { bad(); }</del>"), std::string::npos);
  EXPECT_NE(fixit.find("<ins>+__global__ void k() { good(); }</ins>"), std::string::npos);
  EXPECT_NE(fixit.find("bad() reads past the tile"), std::string::npos);
  EXPECT_EQ(fixit.find("data-pwned=\"1\""), std::string::npos);
  screenshot(out / "view" / fixit_href, "fixit-row.png", "1400,1400");
}

// A model's reply, feedback, compile log and name full of markup: shown as text on the
// trajectory's page and in the index, never executed.
TEST_F(ReportInBrowser, ModelMarkupIsShownAsTextNeverRun) {
  const fs::path run = work_.path() / "hostile";
  testing::write_run(run, {testing::make_hostile_trajectory()});
  const fs::path out = work_.path() / "hostile-report";
  auto command = runner_.run(
      {.argv = {PTXBENCH_EXECUTABLE, "report", run.string(), "--out", out.string(), "--quiet"},
       .timeout = std::chrono::seconds(60)});
  ASSERT_TRUE(command.succeeded()) << command.describe_end() << "\n" << command.stderr_text;

  const std::string page = dom_of(out / "view" / "trajectory" / "1.html");
  EXPECT_EQ(page.find("data-pwned=\"1\""), std::string::npos) << "the model's script ran";
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;document.body.setAttribute('data-pwned','1')"),
            std::string::npos);
  EXPECT_NE(page.find("model-&lt;b&gt;bold&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(page.find("id=\"turn-2\""), std::string::npos) << "the page is whole after the markup";

  const std::string index =
      dom_of(out / "view" / "index.html", "#model=model-%3Cb%3Ebold%3C%2Fb%3E");
  EXPECT_EQ(index.find("data-pwned=\"1\""), std::string::npos);
  EXPECT_NE(index.find("id=\"count\">1 of 1 items<"), std::string::npos) << index.substr(0, 3000);
  EXPECT_NE(index.find(">model-&lt;b&gt;bold&lt;/b&gt;<"), std::string::npos);
}

}  // namespace
}  // namespace ptxbench::report
