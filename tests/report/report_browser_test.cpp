// The page in a real browser: `ptxbench report` run as a user runs it, then report.html opened in
// headless Chromium, which must log no console errors and no blocked or failed loads, must show
// every plot, and leaves a screenshot to look at (PTXBENCH_REPORT_SCREENSHOT_DIR keeps it). Every
// plot must also be well-formed XML, since plots/*.svg are meant for papers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

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

class ReportInBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    if (!chromium_) GTEST_SKIP() << "no chromium in PATH (Debian package: chromium)";
  }

  util::ProcessResult browse(std::vector<std::string> flags, const fs::path& file) {
    std::vector<std::string> argv{
        chromium_->string(), "--headless",
        "--disable-gpu",     "--no-sandbox",
        "--no-first-run",    "--user-data-dir=" + (work_.path() / "profile").string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back("file://" + fs::absolute(file).string());
    return runner_.run({.argv = argv,
                        .timeout = std::chrono::seconds(90),
                        .env = {{"HOME", work_.path().string()}}});
  }

  util::SystemProcessRunner runner_;
  util::TempDir work_;
  std::optional<fs::path> chromium_;
};

TEST_F(ReportInBrowser, CommandWritesAPageThatRendersCleanly) {
  const auto dirs = testing::write_sample_runs(work_.path() / "runs");
  const fs::path out = work_.path() / "report";
  std::vector<std::string> argv{PTXBENCH_EXECUTABLE,
                                "report",
                                "base=" + dirs[0].string(),
                                "tuned=" + dirs[1].string(),
                                "--out",
                                out.string(),
                                "--compare",
                                "context=none:isa",
                                "--compare",
                                "base:tuned",
                                "--bootstrap",
                                "500"};
  if (auto published = testing::shared_published_dir()) {
    argv.push_back("--published");
    for (const char* f :
         {"correctness_rate_by_release_date.csv",
          "arch_instruction_correctness_by_release_date.csv", "best_speedup_by_release_date.csv"}) {
      argv.push_back((*published / f).string());
    }
  }
  auto command = runner_.run({.argv = argv, .timeout = std::chrono::seconds(120)});
  ASSERT_TRUE(command.succeeded()) << command.describe_end() << "\n" << command.stderr_text;
  EXPECT_NE(command.stdout_text.find("report.html"), std::string::npos);
  EXPECT_NE(command.stderr_text.find("report: read 54 trajectories"), std::string::npos)
      << command.stderr_text;

  const auto report = nlohmann::json::parse(*util::read_file(out / "report.json"));
  std::vector<std::string> plot_ids;
  for (const auto& plot : report["plots"]) plot_ids.push_back(plot["id"].get<std::string>());
  ASSERT_GE(plot_ids.size(), 8u);

  // The DOM as the browser built it: every plot is there as an <svg>.
  auto dom = browse({"--dump-dom"}, out / "report.html");
  ASSERT_TRUE(dom.succeeded()) << dom.describe_end() << "\n" << dom.stderr_text;
  for (const auto& id : plot_ids) {
    EXPECT_NE(dom.stdout_text.find("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" + id + "\""),
              std::string::npos)
        << id;
  }

  // A screenshot, with the browser's log on stderr: no console messages, no failed loads.
  const char* keep = std::getenv("PTXBENCH_REPORT_SCREENSHOT_DIR");
  const fs::path shot = (keep && *keep ? fs::path(keep) : work_.path()) / "report.png";
  fs::create_directories(shot.parent_path());
  auto screenshot = browse({"--enable-logging=stderr", "--v=0", "--hide-scrollbars",
                            "--window-size=1280,6000", "--screenshot=" + shot.string()},
                           out / "report.html");
  ASSERT_TRUE(screenshot.succeeded()) << screenshot.describe_end() << "\n"
                                      << screenshot.stderr_text;
  ASSERT_TRUE(fs::is_regular_file(shot));
  EXPECT_GT(fs::file_size(shot), 50'000u);  // a page of plots, not a blank one
  for (const char* sign : {"CONSOLE", "Uncaught", "net::ERR", "Refused to", "Failed to load"}) {
    EXPECT_EQ(screenshot.stderr_text.find(sign), std::string::npos)
        << sign << " in the browser log:\n"
        << screenshot.stderr_text;
  }

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
}

}  // namespace
}  // namespace ptxbench::report
