// The trajectory viewer's pieces: code highlighting and diffs, a trajectory's page (every part of
// a turn, model markup shown as text), the index data, Fixit row pages, the folder's growth, the
// leaderboard and the like-for-like marks beside the published figures.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "ptxbench/report/like_for_like.hpp"
#include "ptxbench/report/report.hpp"
#include "ptxbench/report/view/code_view.hpp"
#include "ptxbench/report/view/fixit_page.hpp"
#include "ptxbench/report/view/trajectory_page.hpp"
#include "ptxbench/report/view/viewer.hpp"
#include "ptxbench/util/fs.hpp"
#include "trajectory_builder.hpp"

namespace ptxbench::report::view {
namespace {
namespace fs = std::filesystem;

std::size_t count(const std::string& text, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(CodeView, HighlightsTokensAndEscapesEverything) {
  const std::string html = highlight_code(
      "#include <cuda.h>\n__global__ void k() { // </textarea><script>\n"
      "  asm volatile(\"wgmma.fence.sync.aligned;\");\n  int x = 42; }\n");
  EXPECT_NE(html.find("<span class=\"p\">#include &lt;cuda.h&gt;</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"k\">__global__</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"c\">// &lt;/textarea&gt;&lt;script&gt;</span>"),
            std::string::npos);
  EXPECT_NE(html.find("<span class=\"s\">&quot;wgmma.fence.sync.aligned;&quot;</span>"),
            std::string::npos);
  EXPECT_NE(html.find("<span class=\"n\">42</span>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("</textarea"), std::string::npos);
}

TEST(CodeView, DiffIsTheShortestEditAndShowsContext) {
  const auto diff = diff_lines("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n");
  EXPECT_EQ(diff.added, 2);
  EXPECT_EQ(diff.removed, 1);
  const std::string html = diff_html(diff, 1);
  EXPECT_NE(html.find("<del>-b</del>"), std::string::npos);
  EXPECT_NE(html.find("<ins>+B</ins>"), std::string::npos);
  EXPECT_NE(html.find("<ins>+e</ins>"), std::string::npos);
  EXPECT_EQ(diff_lines("x\n", "x\n").added, 0);
  EXPECT_TRUE(diff_lines(std::string(5000, '\n'), "a", 3000).too_large);
  EXPECT_NE(diff_html(diff_lines("<a>\n", "<b>\n")).find("&lt;b&gt;"), std::string::npos);
}

TEST(TrajectoryPage, ShowsEveryPartOfATurnAndModelMarkupAsText) {
  const auto t = testing::make_hostile_trajectory();
  const std::string page = trajectory_page(t, "base", "../index.html");
  // Nothing the model wrote became an element: every '<' of kHostileMarkup is escaped, and the
  // page allows no script at all.
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("</textarea"), std::string::npos);
  EXPECT_EQ(page.find("<b>bold"), std::string::npos);
  EXPECT_NE(page.find("model-&lt;b&gt;bold&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
  EXPECT_GE(count(page, "&lt;script&gt;document.body.setAttribute"), 5u);

  EXPECT_NE(page.find("Prompt: context level <b>isa</b>"), std::string::npos);
  EXPECT_NE(page.find("id=\"turn-1\""), std::string::npos);
  EXPECT_NE(page.find("id=\"turn-2\""), std::string::npos);
  EXPECT_NE(page.find("<mark class=\"extracted\">"), std::string::npos);  // code in the reply
  EXPECT_NE(page.find("Code against the previous turn: 2 line(s) added, 1 removed"),
            std::string::npos);
  EXPECT_NE(page.find("Compile log"), std::string::npos);
  // The feedback exactly as sent (the conversation's user message of the turn).
  EXPECT_NE(page.find("Compile error, exactly as sent: &lt;/textarea&gt;"), std::string::npos);
  EXPECT_NE(page.find("<td>compile</td><td>failed</td>"), std::string::npos);
  EXPECT_NE(page.find("<td>GMMA</td><td>yes</td><td class=\"num\">4</td><td class=\"num\">"
                      "4096</td><td class=\"num\">90.0%</td>"),
            std::string::npos);
  EXPECT_NE(page.find("<td class=\"num\">168</td><td class=\"num\">1024+229376</td>"
                      "<td>132×1×1</td><td>384×1×1</td>"),
            std::string::npos);
  EXPECT_NE(page.find("speedup <b>1.250</b> · speed of light <b>0.610</b>"), std::string::npos);
  EXPECT_NE(page.find("cost <b>$0.0123</b>"), std::string::npos);

  const IndexItem item = trajectory_item(t, "base");
  EXPECT_EQ(item[IndexColumn::kVerdicts], "COMPILE_ERROR PASSED");
  EXPECT_EQ(item[IndexColumn::kOutcome], "verified");
  EXPECT_EQ(item[IndexColumn::kBestSpeedup], "1.250");
}

TEST(Viewer, IndexDataCannotCloseItsScriptAndLinksEncodeFilters) {
  util::TempDir dir;
  ViewerWriter viewer(dir.path());
  viewer.add_trajectory(testing::make_hostile_trajectory(), "run</script><script>x");
  const auto files = viewer.finish();
  EXPECT_EQ(files.size(), 4u);  // the page, index.js, viewer.js, index.html
  const std::string data = *util::read_file(dir.path() / "view" / "index.js");
  EXPECT_EQ(data.find('<'), std::string::npos);
  EXPECT_NE(data.find("run\\u003c/script>"), std::string::npos);
  EXPECT_TRUE(fs::is_regular_file(dir.path() / "view" / "trajectory" / "1.html"));
  EXPECT_EQ(index_link({{"model", "a b&c"}, {"task", "all"}, {"context", ""}}),
            "view/index.html#model=a%20b%26c");
}

TEST(Viewer, FixitRowShowsFailureRepairDiffVerdictsAndExplanation) {
  util::TempDir dir;
  testing::write_sample_fixit(dir.path());

  auto cases = read_fixit_cases(dir.path());
  ASSERT_TRUE(cases) << cases.error().message;
  ASSERT_EQ(cases->size(), 1u);
  const std::string page = fixit_page(cases->front(), "../index.html");
  EXPECT_NE(page.find("INCORRECT_NUMERICAL"), std::string::npos);
  EXPECT_NE(page.find("<del>-__global__ void k() { bad(); }</del>"), std::string::npos);
  EXPECT_NE(page.find("<ins>+__global__ void k() { good(); }</ins>"), std::string::npos);
  EXPECT_NE(page.find("v-PASSED"), std::string::npos);
  EXPECT_NE(page.find("<b>verified</b> PASSED on the GPU"), std::string::npos);
  EXPECT_NE(page.find("bad() reads past the tile"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  const IndexItem item = fixit_item(cases->front());
  EXPECT_EQ(item[IndexColumn::kKind], "fixit");
  EXPECT_EQ(item[IndexColumn::kOutcome], "verified");
  EXPECT_EQ(item[IndexColumn::kVerdicts], "INCORRECT_NUMERICAL PASSED");

  auto missing = read_fixit_cases(dir.path() / "nothing");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("not a Fixit folder"), std::string::npos);
}

// 10,000 trajectories must stay usable: one page per trajectory and one index row, so the
// folder grows linearly (twice the trajectories, about twice the bytes).
TEST(Viewer, FolderGrowsLinearly) {
  util::TempDir root;
  auto viewer_bytes = [&root](int trajectories) {
    const fs::path run = root.path() / fmt::format("run{}", trajectories);
    std::vector<agent::Trajectory> list;
    for (int s = 0; s < trajectories; ++s) {
      list.push_back(testing::make_trajectory(
          {.sample = s,
           .turns = {testing::fails(eval::Verdict::kCompileError), testing::passed(1.1)}}));
    }
    testing::write_run(run, list);
    ReportOptions options{.out_dir = root.path() / fmt::format("out{}", trajectories),
                          .bootstrap_resamples = 0};
    auto paths = write_report({run}, options);
    EXPECT_TRUE(paths);
    std::uintmax_t bytes = 0;
    for (const auto& entry : fs::recursive_directory_iterator(options.out_dir / "view")) {
      if (entry.is_regular_file()) bytes += entry.file_size();
    }
    return static_cast<double>(bytes);
  };
  const double small = viewer_bytes(30);
  const double large = viewer_bytes(60);
  EXPECT_GT(large / small, 1.8);
  EXPECT_LT(large / small, 2.1);
}

}  // namespace
}  // namespace ptxbench::report::view

namespace ptxbench::report {
namespace {
namespace fs = std::filesystem;

TEST(LikeForLike, ByTheFirstPromptsSize) {
  EXPECT_EQ(like_for_like(std::nullopt), "unknown: no prompt tokens recorded");
  EXPECT_EQ(like_for_like(11'000.0), "no: ≈11.0k tokens against 22–31k published");
  EXPECT_TRUE(like_for_like(23'450.0).starts_with("yes"));
  EXPECT_TRUE(is_like_for_like(38'000.0));  // within the range widened by 25%
  EXPECT_FALSE(is_like_for_like(40'300.0));
}

// The leaderboard pools tasks per run, model, arch and context, links our rows into the viewer
// and marks the published rows beside cells whose prompts are not of their size.
TEST(Leaderboard, RowsLinksAndPublishedMarks) {
  util::TempDir root;
  const auto dirs = testing::write_sample_runs(root.path() / "runs");
  util::write_file_atomic(root.path() / "published.csv",
                          "model,arch,definition,turn_limit,n_trajectories,correct\n"
                          "Their Model,hopper,gemm_n7168_k5120,1,12,6\n");
  ReportOptions options{.out_dir = root.path() / "out",
                        .published_files = {root.path() / "published.csv"},
                        .bootstrap_resamples = 0};
  auto paths = write_report(dirs, options);
  ASSERT_TRUE(paths) << paths.error().message;
  const std::string html = *util::read_file(paths->leaderboard);
  EXPECT_NE(html.find("href=\"view/index.html#kind=trajectory&amp;model=model-a&amp;run=base&amp;"
                      "arch=hopper&amp;context=isa\""),
            std::string::npos);
  EXPECT_NE(html.find("<td>Their Model</td>"), std::string::npos);
  const std::string table = *util::read_file(root.path() / "out" / "tables" / "leaderboard.csv");
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 5)  // header, 3 of ours, 1 published
      << table;
  const std::string side =
      *util::read_file(root.path() / "out" / "tables" / "published_side_by_side.csv");
  EXPECT_NE(side.find("no: ≈4.5k tokens against 22–31k published"), std::string::npos) << side;
  EXPECT_NE(side.find("no: not like for like with ours (isa, none)"), std::string::npos) << side;
}

}  // namespace
}  // namespace ptxbench::report
