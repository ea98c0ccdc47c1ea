// Whole reports written to disk: which files appear, the export schema of the main tables, known
// answers end to end on the committed mini run, the held-out lookup, stale files, input errors.
#include "ptxbench/report/report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "ptxbench/report/csv.hpp"
#include "ptxbench/report/report_data.hpp"
#include "ptxbench/report/statistics.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"
#include "trajectory_builder.hpp"

namespace ptxbench::report {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kMiniRun = fs::path(PTXBENCH_TEST_DATA_DIR) / "mini_run";

std::vector<CsvRecord> read_csv(const fs::path& path) {
  auto text = util::read_file(path);
  EXPECT_TRUE(text) << path;
  auto records = parse_csv(text ? *text : "");
  EXPECT_TRUE(records);
  return records ? *records : std::vector<CsvRecord>{};
}

// Rows of a CSV as maps from column name to field.
std::vector<std::map<std::string, std::string>> csv_rows(const fs::path& path) {
  const auto records = read_csv(path);
  std::vector<std::map<std::string, std::string>> rows;
  for (std::size_t r = 1; r < records.size(); ++r) {
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < records[0].size(); ++c) row[records[0][c]] = records[r][c];
    rows.push_back(std::move(row));
  }
  return rows;
}

ReportOptions quiet(const fs::path& out) {
  ReportOptions options;
  options.out_dir = out;
  options.bootstrap_resamples = 200;
  return options;
}

TEST(Report, MiniRunKnownAnswersEndToEnd) {
  util::TempDir out;
  auto paths = write_report({kMiniRun}, quiet(out.path()));
  ASSERT_TRUE(paths) << paths.error().message;
  EXPECT_EQ(paths->trajectories, 3u);
  const auto rows = csv_rows(out.path() / "tables" / "correctness.csv");
  const std::map<std::string, std::string>* gemm_t1 = nullptr;
  const std::map<std::string, std::string>* gemm_t4 = nullptr;
  for (const auto& row : rows) {
    if (row.at("task") != "gemm_n7168_k5120") continue;
    if (row.at("t") == "1") gemm_t1 = &row;
    if (row.at("t") == "4") gemm_t4 = &row;
  }
  ASSERT_TRUE(gemm_t1 && gemm_t4);
  EXPECT_EQ(gemm_t1->at("n"), "2");
  EXPECT_EQ(gemm_t1->at("correct_k"), "0");
  EXPECT_EQ(gemm_t4->at("correct_k"), "2");
  EXPECT_EQ(gemm_t4->at("verified_k"), "1");
  EXPECT_EQ(gemm_t4->at("verified_any_k"), "2");
  EXPECT_EQ(gemm_t4->at("compiled_k"), "2");
  const auto wilson = wilson_interval(1, 2);
  EXPECT_NEAR(std::stod(gemm_t4->at("verified_lo")), wilson->lo, 1e-12);
  EXPECT_NEAR(std::stod(gemm_t4->at("verified_hi")), wilson->hi, 1e-12);

  // Turn 1 of the gemm cell: one compile error (an undefined identifier) and one reply without
  // code.
  bool saw_turn_one = false;
  for (const auto& row : csv_rows(out.path() / "tables" / "error_taxonomy.csv")) {
    if (row.at("task") != "gemm_n7168_k5120" || row.at("turn") != "1") continue;
    saw_turn_one = true;
    EXPECT_EQ(row.at("COMPILE_ERROR"), "1");
    EXPECT_EQ(row.at("COMPILE_ERROR_undefined_identifier"), "1");
    EXPECT_EQ(row.at("COMPILE_ERROR_syntax"), "0");
    EXPECT_EQ(row.at("NO_CODE"), "1");
    EXPECT_EQ(row.at("NO_TURN"), "0");
  }
  EXPECT_TRUE(saw_turn_one);

  // The mini run's turn budget is 4: the default turn limits are 1 and 4.
  std::set<std::string> limits;
  for (const auto& row : rows) limits.insert(row.at("t"));
  EXPECT_EQ(limits, (std::set<std::string>{"1", "4"}));
  bool saw_speedup = false;
  for (const auto& row : csv_rows(out.path() / "tables" / "speedup.csv")) {
    if (row.at("task") != "gemm_n7168_k5120" || row.at("t") != "4") continue;
    saw_speedup = true;
    EXPECT_EQ(row.at("timed"), "2");
    EXPECT_EQ(std::stod(row.at("best")), 1.05);
    EXPECT_NEAR(std::stod(row.at("median")), (1.05 + 0.8) / 2, 1e-12);
    EXPECT_EQ(row.at("fast_1_k"), "1");
    EXPECT_EQ(row.at("fast_0_8_k"), "1");  // 0.8 is not faster than 0.8
  }
  EXPECT_TRUE(saw_speedup);
}

TEST(Report, DefaultTurnLimitsAreThoseTheRunsHave) {
  auto limits_for = [](std::vector<int> budgets) {
    std::vector<TrajectoryRecord> records;
    for (int budget : budgets) records.push_back({.max_turns = budget});
    return default_turn_limits(records);
  };
  EXPECT_EQ(limits_for({1}), (std::vector<int>{1}));
  EXPECT_EQ(limits_for({3}), (std::vector<int>{1, 3}));
  EXPECT_EQ(limits_for({8}), (std::vector<int>{1, 4, 8}));
  EXPECT_EQ(limits_for({4, 12}), (std::vector<int>{1, 4, 8, 12}));
  EXPECT_EQ(limits_for({16}), (std::vector<int>{1, 4, 8, 16}));
  EXPECT_EQ(limits_for({}), (std::vector<int>{1}));
}

// The fraction of the speed of light beside the speedup: the median over trajectories of each
// one's best, per task; "not measured" for a task whose records carry no bound.
TEST(Report, SpeedOfLightBesideTheSpeedup) {
  util::TempDir root;
  testing::TurnSpec slow = testing::passed(1.2);
  slow.speed_of_light = 0.4;
  testing::TurnSpec fast = testing::passed(1.5);
  fast.speed_of_light = 0.6;
  std::vector<agent::Trajectory> trajectories{
      testing::make_trajectory({.sample = 0, .max_turns = 2, .turns = {slow, fast}}),
      testing::make_trajectory({.sample = 1, .max_turns = 2, .turns = {slow}}),
      testing::make_trajectory(
          {.task = "gemm_n5120_k5120", .max_turns = 2, .turns = {testing::passed(1.1)}})};
  testing::write_run(root.path() / "run", trajectories);
  auto paths = write_report({root.path() / "run"}, quiet(root.path() / "out"));
  ASSERT_TRUE(paths) << paths.error().message;
  int seen = 0;
  for (const auto& row : csv_rows(root.path() / "out" / "tables" / "speedup.csv")) {
    if (row.at("t") != "2") continue;
    ++seen;
    if (row.at("task") == "gemm_n7168_k5120") {
      EXPECT_NEAR(std::stod(row.at("speed_of_light")), (0.6 + 0.4) / 2, 1e-12);
      EXPECT_EQ(row.at("speed_of_light_n"), "2");
    } else {
      EXPECT_EQ(row.at("speed_of_light"), "") << "no bound recorded";
      EXPECT_FALSE(row.at("median").empty()) << "the speedup is there all the same";
    }
  }
  EXPECT_EQ(seen, 2);
  for (const auto& row : csv_rows(root.path() / "out" / "tables" / "trajectory_states.csv")) {
    if (row.at("task") != "gemm_n7168_k5120" || row.at("sample") != "0") continue;
    EXPECT_EQ(row.at("speed_of_light"), row.at("t") == "1" ? "0.4" : "0.6");
  }
  const auto md = util::read_file(paths->summary_markdown);
  ASSERT_TRUE(md);
  const auto table = md->find("Best speedup over the vendor baseline");
  ASSERT_NE(table, std::string::npos);
  EXPECT_NE(md->find("speed_of_light", table), std::string::npos);
  EXPECT_NE(md->find("not measured", table), std::string::npos);
  const auto html = util::read_file(paths->html);
  ASSERT_TRUE(html);
  EXPECT_NE(html->find("speed_of_light"), std::string::npos);
  auto report_json = json::parse(*util::read_file(paths->json));
  bool in_json = false;
  for (const auto& column : report_json["tables"]["speedup"]["columns"]) {
    in_json = in_json || column.dump().find("speed_of_light") != std::string::npos;
  }
  EXPECT_TRUE(in_json);
}

// GPU-seconds per verdict and the caches' hit rates, per run: sanitize beside correctness
// counts once (the longer), a cached verdict holds no GPU, a compile error ran no GPU stage.
TEST(Report, JudgingCostAndCacheHitRates) {
  util::TempDir root;
  auto gpu_turn = [](double sanitize, double correctness, double probe, double timing) {
    auto t = testing::make_trajectory({.max_turns = 1, .turns = {testing::passed(1.0)}});
    auto& e = t.turns[0].evaluation;
    e.stage(eval::Stage::kSanitize) = {
        .stage = eval::Stage::kSanitize, .status = eval::StageStatus::kPassed, .seconds = sanitize};
    e.stage(eval::Stage::kCorrectness) = {.stage = eval::Stage::kCorrectness,
                                          .status = eval::StageStatus::kPassed,
                                          .seconds = correctness};
    e.stage(eval::Stage::kDynamicSass) = {
        .stage = eval::Stage::kDynamicSass, .status = eval::StageStatus::kPassed, .seconds = probe};
    e.stage(eval::Stage::kTiming) = {
        .stage = eval::Stage::kTiming, .status = eval::StageStatus::kPassed, .seconds = timing};
    return t;
  };
  auto a = gpu_turn(2, 3.5, 0.5, 0.5);  // 4.5 s
  auto b = gpu_turn(4, 1, 1, 1);        // 6 s, its compile from the compile cache
  b.turns[0].evaluation.compile.cached = true;
  b.turns[0].evaluation.stage(eval::Stage::kCorrectness).reference_cache =
      eval::CacheCounts{.hits = 3, .misses = 1};
  b.info.sample = 1;
  auto c = gpu_turn(2, 3.5, 0.5, 0.5);  // from the verdict cache: 0 s
  c.turns[0].evaluation.compile.cached = true;
  c.turns[0].evaluation.cached = eval::CachedVerdict{.key = "k", .from = "2026-01-01T00:00:00Z"};
  // Counted by the verdict that judged it, not again by the one the verdict cache answered.
  c.turns[0].evaluation.stage(eval::Stage::kCorrectness).reference_cache =
      eval::CacheCounts{.hits = 5, .misses = 0};
  c.info.sample = 2;
  auto d = testing::make_trajectory(
      {.sample = 3, .max_turns = 1, .turns = {testing::fails(eval::Verdict::kCompileError)}});
  for (auto* t : {&b, &c, &d}) t->info.id += "-" + std::to_string(t->info.sample);
  testing::write_run(root.path() / "run", {a, b, c, d});
  auto paths = write_report({root.path() / "run"}, quiet(root.path() / "out"));
  ASSERT_TRUE(paths) << paths.error().message;
  const auto rows = csv_rows(root.path() / "out" / "tables" / "judging.csv");
  ASSERT_EQ(rows.size(), 1u);
  const auto& row = rows[0];
  EXPECT_EQ(row.at("verdicts"), "4");
  EXPECT_EQ(row.at("gpu_verdicts"), "3");
  EXPECT_NEAR(std::stod(row.at("gpu_s_per_verdict")), (4.5 + 6) / 4, 1e-9);
  EXPECT_NEAR(std::stod(row.at("gpu_s_p50")), (4.5 + 6) / 2, 1e-9);
  EXPECT_EQ(row.at("compiles"), "4");
  EXPECT_EQ(row.at("compile_cache_hits"), "2");
  EXPECT_NEAR(std::stod(row.at("compile_cache_hit_rate")), 0.5, 1e-9);
  EXPECT_EQ(row.at("verdict_cache_hits"), "1");
  EXPECT_NEAR(std::stod(row.at("verdict_cache_hit_rate")), 1.0 / 3, 1e-3);
  EXPECT_EQ(row.at("reference_trials"), "4");
  EXPECT_EQ(row.at("reference_cache_hits"), "3");
  EXPECT_NEAR(std::stod(row.at("reference_cache_hit_rate")), 0.75, 1e-9);
  const auto md = util::read_file(paths->summary_markdown);
  ASSERT_TRUE(md);
  EXPECT_NE(md->find("Judging cost and caches"), std::string::npos);
  EXPECT_NE(md->find("verdict_cache_hit_rate"), std::string::npos);
  const auto html = util::read_file(paths->html);
  ASSERT_TRUE(html);
  EXPECT_NE(html->find("gpu_s_per_verdict"), std::string::npos);
}

// The mini run's held-out trajectory does not record its split: the tables take it from the
// suite, and so does the viewer's index, so a held-out cell's link finds its trajectory.
TEST(Report, ViewerItemsCarryTheSplitOfTheTables) {
  util::TempDir out;
  auto paths = write_report({kMiniRun}, quiet(out.path()));
  ASSERT_TRUE(paths) << paths.error().message;
  auto script = util::read_file(out.path() / "view" / "index.js");
  ASSERT_TRUE(script);
  const std::string prefix = "window.PTXBENCH_VIEW = ";
  ASSERT_EQ(script->rfind(prefix, 0), 0u);
  const auto data =
      nlohmann::json::parse(script->substr(prefix.size(), script->rfind(';') - prefix.size()));
  const auto& columns = data.at("columns");
  const auto split = std::find(columns.begin(), columns.end(), "split") - columns.begin();
  const auto task = std::find(columns.begin(), columns.end(), "task") - columns.begin();
  int heldout = 0;
  for (const auto& item : data.at("items")) {
    // an item is [page, title, value per column]
    const std::string item_task = item.at(2 + task), item_split = item.at(2 + split);
    EXPECT_EQ(item_split, item_task == "mha_fwd_lse_d96" ? "heldout" : "train") << item_task;
    heldout += item_split == "heldout";
  }
  EXPECT_EQ(heldout, 1);
}

// summary.md is Markdown, which renderers show with its HTML: model and task names (and the run
// label in its facts) are text there, as on the HTML pages.
TEST(Report, SummaryMarkdownShowsNamesAsText) {
  util::TempDir root;
  const std::string model = "m" + std::string(testing::kHostileMarkup);
  testing::write_run(root.path() / "run<b>x</b>",
                     {testing::make_trajectory(
                         {.model = model, .max_turns = 1, .turns = {testing::passed(1.1)}})});
  auto paths = write_report({root.path() / "run<b>x</b>"}, quiet(root.path() / "out"));
  ASSERT_TRUE(paths) << paths.error().message;
  const std::string md = *util::read_file(paths->summary_markdown);
  EXPECT_NE(md.find("&lt;script&gt;"), std::string::npos) << md;
  for (const char* element : {"<script", "<img", "</textarea", "<b>"})
    EXPECT_EQ(md.find(element), std::string::npos) << element << " left as markup in\n" << md;
}

// A GPU run with one correct and one host-only trajectory (INSTRUCTIONS_ABSENT: no device code)
// is 1 of 2 correct; a trajectory whose GPU stages could not run leaves the denominators, and
// the page says how many did.
TEST(Report, HostOnlyTrajectoryOnAGpuCountsInEveryRate) {
  util::TempDir root;
  testing::TurnSpec host_only = testing::fails(eval::Verdict::kInstructionsAbsent);
  testing::TurnSpec absent_without_gpu = host_only;
  absent_without_gpu.gpu = false;
  const std::vector<testing::TurnSpec> turns{testing::passed(1.3), host_only, absent_without_gpu};
  std::vector<agent::Trajectory> trajectories;
  for (int sample = 0; sample < 2; ++sample) {
    trajectories.push_back(testing::make_trajectory(
        {.model = "gpu-run", .sample = sample, .max_turns = 1, .turns = {turns[sample]}}));
  }
  testing::write_run(root.path() / "gpu", trajectories);
  auto paths = write_report({root.path() / "gpu"}, quiet(root.path() / "out"));
  ASSERT_TRUE(paths) << paths.error().message;
  auto rows = csv_rows(root.path() / "out" / "tables" / "correctness.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("not_measured"), "0");
  EXPECT_EQ(rows[0].at("correct_k"), "1");
  EXPECT_EQ(rows[0].at("correct_n"), "2");
  EXPECT_EQ(rows[0].at("verified_n"), "2");

  trajectories.push_back(testing::make_trajectory(
      {.model = "gpu-run", .sample = 2, .max_turns = 1, .turns = {turns[2]}}));
  testing::write_run(root.path() / "mixed", trajectories);
  paths = write_report({root.path() / "mixed"}, quiet(root.path() / "out-mixed"));
  ASSERT_TRUE(paths) << paths.error().message;
  rows = csv_rows(root.path() / "out-mixed" / "tables" / "correctness.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("not_measured"), "1");
  EXPECT_EQ(rows[0].at("correct_n"), "2");
  const std::string md = *util::read_file(paths->summary_markdown);
  EXPECT_NE(md.find("1 of 3 trajectories were never judged"), std::string::npos) << md;
}

// A run in which no GPU stage ran (a CPU machine): not 0% correct but "not measured", a banner,
// plots that say why they are empty, unknown tokens as "–".
TEST(Report, WithoutGpuStagesNothingIsCountedAsIncorrect) {
  util::TempDir root;
  testing::TurnSpec not_run = testing::fails(eval::Verdict::kNotRun);
  not_run.prompt_tokens.reset();
  not_run.completion_tokens.reset();
  std::vector<agent::Trajectory> trajectories;
  for (int sample = 0; sample < 2; ++sample) {
    trajectories.push_back(testing::make_trajectory(
        {.model = "replayed", .sample = sample, .max_turns = 1, .turns = {not_run}}));
  }
  testing::write_run(root.path() / "cpu", trajectories);
  auto paths = write_report({root.path() / "cpu"}, quiet(root.path() / "out"));
  ASSERT_TRUE(paths) << paths.error().message;

  const auto rows = csv_rows(root.path() / "out" / "tables" / "correctness.csv");
  ASSERT_EQ(rows.size(), 1u);  // one cell, at the one turn limit the run has
  EXPECT_EQ(rows[0].at("t"), "1");
  EXPECT_EQ(rows[0].at("not_measured"), "2");
  EXPECT_EQ(rows[0].at("correct"), "");
  EXPECT_EQ(rows[0].at("correct_n"), "0");
  EXPECT_EQ(rows[0].at("compiled_k"), "2");

  const std::string md = *util::read_file(paths->summary_markdown);
  EXPECT_NE(md.find("No GPU stage ran: 2 turn(s) are NOT_RUN"), std::string::npos);
  EXPECT_NE(md.find("| not measured |"), std::string::npos);
  EXPECT_EQ(md.find("0.00 [0.00"), std::string::npos) << "nothing reads as 0% correct";
  const std::string html = *util::read_file(paths->html);
  EXPECT_NE(html.find("class=\"banner\""), std::string::npos);
  // Plots with nothing to draw fold into one line per reason instead of empty frames.
  EXPECT_NE(html.find("Nothing to draw in "), std::string::npos);
  EXPECT_EQ(html.find("id=\"speedup-hopper\""), std::string::npos) << "an empty plot drawn";
  auto speedup_svg = util::read_file(root.path() / "out" / "plots" / "speedup-hopper.svg");
  ASSERT_TRUE(speedup_svg);
  EXPECT_NE(speedup_svg->find("Nothing to draw: no GPU stage ran"), std::string::npos);

  const auto totals = csv_rows(root.path() / "out" / "tables" / "usage_totals.csv");
  ASSERT_EQ(totals.size(), 1u);
  EXPECT_EQ(totals[0].at("prompt_tokens"), "");
  EXPECT_EQ(totals[0].at("completion_tokens"), "");
  EXPECT_NE(md.find("–"), std::string::npos) << "unknown token counts read as a dash";
}

TEST(Report, WritesEveryFormAndTheSchemaOfTheMainTables) {
  util::TempDir root;
  const auto dirs = testing::write_sample_runs(root.path() / "runs");
  auto options = quiet(root.path() / "out");
  options.comparisons = {"context=none:isa", "base:tuned"};
  auto paths = write_report(dirs, options);
  ASSERT_TRUE(paths) << paths.error().message;
  EXPECT_EQ(paths->trajectories, 54u);
  for (const auto& file : {paths->html, paths->summary_markdown, paths->json}) {
    EXPECT_TRUE(fs::is_regular_file(file)) << file;
  }
  for (const char* table :
       {"runs", "correctness", "speedup", "splits", "comparison", "error_taxonomy",
        "compile_errors", "usage_by_turn", "usage_totals", "trajectory_states"}) {
    EXPECT_TRUE(fs::is_regular_file(root.path() / "out" / "tables" / (std::string(table) + ".csv")))
        << table;
    EXPECT_TRUE(
        fs::is_regular_file(root.path() / "out" / "tables" / (std::string(table) + ".json")))
        << table;
  }
  const auto header = read_csv(root.path() / "out" / "tables" / "correctness.csv").at(0);
  const std::vector<std::string> expected{"run",
                                          "model",
                                          "task",
                                          "arch",
                                          "context",
                                          "split",
                                          "t",
                                          "n",
                                          "not_measured",
                                          "carried",
                                          "max_turns",
                                          "compiled",
                                          "compiled_lo",
                                          "compiled_hi",
                                          "compiled_k",
                                          "compiled_n",
                                          "correct",
                                          "correct_lo",
                                          "correct_hi",
                                          "correct_k",
                                          "correct_n",
                                          "verified",
                                          "verified_lo",
                                          "verified_hi",
                                          "verified_k",
                                          "verified_n",
                                          "verified_any",
                                          "verified_any_lo",
                                          "verified_any_hi",
                                          "verified_any_k",
                                          "verified_any_n",
                                          "correct_unseen",
                                          "correct_unseen_lo",
                                          "correct_unseen_hi",
                                          "correct_unseen_k",
                                          "correct_unseen_n",
                                          "correctness_rule"};
  EXPECT_EQ(header, expected);
  const auto speedup_header = read_csv(root.path() / "out" / "tables" / "speedup.csv").at(0);
  for (const char* column : {"best", "best_lo", "best_hi", "median", "median_lo", "median_hi",
                             "fast_0_k", "fast_0_5", "fast_0_8", "fast_1", "fast_1_2_n"}) {
    EXPECT_NE(std::find(speedup_header.begin(), speedup_header.end(), column), speedup_header.end())
        << column;
  }
  // JSON exports carry the same rows as the CSVs.
  auto report_json = json::parse(*util::read_file(paths->json));
  EXPECT_EQ(report_json["ptxbench_report_format"], 1);
  for (const auto& [name, table] : report_json["tables"].items()) {
    const auto records = read_csv(root.path() / "out" / "tables" / (name + ".csv"));
    EXPECT_EQ(table["rows"].size() + 1, records.size()) << name;
  }
  // Held-out rows are reported on their own.
  bool saw_heldout = false;
  for (const auto& row : csv_rows(root.path() / "out" / "tables" / "splits.csv")) {
    saw_heldout = saw_heldout || (row.at("split") == "heldout" && row.at("task") == "all");
  }
  EXPECT_TRUE(saw_heldout);
  // Both comparisons produced rows, with a difference for each metric.
  std::set<std::string> compared;
  for (const auto& row : csv_rows(root.path() / "out" / "tables" / "comparison.csv")) {
    compared.insert(row.at("comparison"));
    if (row.at("metric").starts_with("correct@")) {
      EXPECT_FALSE(row.at("difference_lo").empty());
    }
  }
  EXPECT_EQ(compared, (std::set<std::string>{"context=none:isa", "base:tuned"}));
  EXPECT_EQ(report_json["plots"].size(), paths->plots.size());
  EXPECT_GE(paths->plots.size(), 8u);
}

TEST(Report, HtmlIsSelfContained) {
  util::TempDir root;
  const auto dirs = testing::write_sample_runs(root.path() / "runs");
  auto options = quiet(root.path() / "out");
  options.comparisons = {"none:isa"};
  auto paths = write_report(dirs, options);
  ASSERT_TRUE(paths);
  const std::string html = *util::read_file(paths->html);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  // The only absolute URL is the SVG namespace name, which is never fetched.
  const std::regex url("https?://[^\"' )<]+");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), url); it != std::sregex_iterator();
       ++it) {
    EXPECT_EQ(it->str(), "http://www.w3.org/2000/svg");
  }
  std::size_t svgs = 0;
  for (auto pos = html.find("<svg "); pos != std::string::npos; pos = html.find("<svg ", pos + 1))
    ++svgs;
  EXPECT_EQ(svgs, paths->plots.size());
  const std::string md = *util::read_file(paths->summary_markdown);
  EXPECT_NE(md.find("| run | model | task |"), std::string::npos);
  EXPECT_NE(md.find("](plots/"), std::string::npos);
}

TEST(Report, ZeroTrajectoriesStillWriteAReport) {
  util::TempDir root;
  fs::create_directories(root.path() / "empty" / "trajectories");
  auto paths = write_report({root.path() / "empty"}, quiet(root.path() / "out"));
  ASSERT_TRUE(paths) << paths.error().message;
  EXPECT_EQ(paths->trajectories, 0u);
  const auto records = read_csv(root.path() / "out" / "tables" / "correctness.csv");
  EXPECT_EQ(records.size(), 1u);  // the header only
  EXPECT_TRUE(fs::is_regular_file(paths->html));
}

TEST(Report, MissingSplitsComeFromTheTaskSuite) {
  util::TempDir out;
  auto paths = write_report({kMiniRun}, quiet(out.path()));
  ASSERT_TRUE(paths);
  auto suite = task::load_suite(task::default_tasks_dir());
  if (!suite) GTEST_SKIP() << "the task suite did not load: " << suite.error().message;
  const auto* task = task::find_task(*suite, "mha_fwd_lse_d96");
  if (!task) GTEST_SKIP() << "mha_fwd_lse_d96 is not in the suite";
  bool found = false;
  for (const auto& row : csv_rows(out.path() / "tables" / "correctness.csv")) {
    if (row.at("task") != "mha_fwd_lse_d96") continue;
    EXPECT_EQ(row.at("split"), task->split);
    found = true;
  }
  EXPECT_TRUE(found);
}

TEST(Report, ReplacesThePreviousReportsFilesOnly) {
  util::TempDir root;
  const auto dirs = testing::write_sample_runs(root.path() / "runs");
  auto options = quiet(root.path() / "out");
  options.comparisons = {"none:isa"};
  ASSERT_TRUE(write_report(dirs, options));
  const fs::path comparison = root.path() / "out" / "tables" / "comparison.csv";
  ASSERT_TRUE(fs::exists(comparison));
  util::write_file_atomic(root.path() / "out" / "tables" / "mine.csv", "kept\n");
  options.comparisons.clear();
  ASSERT_TRUE(write_report(dirs, options));
  EXPECT_FALSE(fs::exists(comparison));
  EXPECT_TRUE(fs::exists(root.path() / "out" / "tables" / "mine.csv"));
}

TEST(Report, InputErrorsAreValues) {
  util::TempDir out;
  EXPECT_FALSE(write_report({}, quiet(out.path())));
  EXPECT_FALSE(write_report({"/nonexistent/run"}, quiet(out.path())));
  auto bad_limit = quiet(out.path());
  bad_limit.turn_limits = {0};
  EXPECT_FALSE(write_report({kMiniRun}, bad_limit));
  auto bad_compare = quiet(out.path());
  bad_compare.comparisons = {"guide:examples"};
  auto compared = write_report({kMiniRun}, bad_compare);
  ASSERT_FALSE(compared);
  EXPECT_NE(compared.error().message.find("guide"), std::string::npos);
  auto labels = quiet(out.path());
  labels.run_labels = {"a", "b"};
  EXPECT_FALSE(write_report({kMiniRun}, labels));
  auto prices = quiet(out.path());
  prices.prices_file = "/nonexistent/prices.json";
  EXPECT_FALSE(write_report({kMiniRun}, prices));
}

}  // namespace
}  // namespace ptxbench::report
