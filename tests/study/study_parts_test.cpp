// The parts of a study below the orchestrator: held-out splits by rule, the paired tests of the
// comparison page, and the step folder that makes a killed study resumable.
#include <gtest/gtest.h>

#include <cmath>

#include "../report/trajectory_builder.hpp"
#include "ptxbench/study/comparison_page.hpp"
#include "ptxbench/study/paired_test.hpp"
#include "ptxbench/study/splits.hpp"
#include "ptxbench/study/step_folder.hpp"
#include "ptxbench/study/study_runner.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::study {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

Json task(const std::string& name, const std::string& op, int causal) {
  return {{"name", name}, {"op_type", op}, {"parameters", {{"causal", causal}}}};
}

TEST(StudySplits, TheFirstMatchingRuleDecidesAndTheRestIsTrain) {
  const std::vector<HeldOutSplit> rules = {{.name = "sizes", .tasks = {"gemm_n7168_*"}},
                                           {.name = "d256", .head_dims = {256}},
                                           {.name = "causal", .variants = {"causal"}},
                                           {.name = "backward", .op_types = {"mha_bwd"}}};
  EXPECT_EQ(split_of(task("gemm_n7168_k5120", "gemm", 0), rules), "sizes");
  EXPECT_EQ(split_of(task("gemm_n4096_k4096", "gemm", 0), rules), "train");
  EXPECT_EQ(split_of(task("mha_fwd_lse_d256_causal", "mha_fwd_lse", 1), rules), "d256");
  EXPECT_EQ(split_of(task("mha_fwd_lse_d128_causal", "mha_fwd_lse", 1), rules), "causal");
  EXPECT_EQ(split_of(task("mha_fwd_lse_d128", "mha_fwd_lse", 0), rules), "train");
  EXPECT_EQ(split_of(task("mha_bwd_d64", "mha_bwd", 0), rules), "backward");
  EXPECT_EQ(split_of(task("mha_fwd_lse_d2560", "mha_fwd_lse", 0), rules), "train");  // not d256
}

TEST(StudySplits, TheSuiteCopyCarriesTheSplitsAndTheSourceIsUntouched) {
  util::TempDir dir;
  const fs::path source = dir.path() / "tasks";
  fs::create_directories(source / "gemm");
  const std::string original = task("gemm_n7168_k5120", "gemm", 0).dump();
  util::write_file_atomic(source / "gemm/a.json", original);
  util::write_file_atomic(source / "gemm/b.json", task("gemm_n4096_k4096", "gemm", 0).dump());
  auto assigned =
      write_split_suite(source, {{.name = "sizes", .tasks = {"gemm_n7168_*"}}}, dir.path() / "out");
  ASSERT_TRUE(assigned) << assigned.error().message;
  EXPECT_EQ(assigned->at("gemm_n7168_k5120"), "sizes");
  EXPECT_EQ(assigned->at("gemm_n4096_k4096"), "train");
  auto copy = util::read_file(dir.path() / "out/gemm/a.json");
  ASSERT_TRUE(copy);
  EXPECT_EQ(Json::parse(*copy)["split"], "heldout");
  EXPECT_EQ(*util::read_file(source / "gemm/a.json"), original);
  util::write_file_atomic(source / "gemm/bad.json", "[1]");
  auto bad = write_split_suite(source, {}, dir.path() / "out2");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("bad.json: not a task file"), std::string::npos);
}

// A study can hold the FP8 GEMM and decode families out by op type (or the decode tasks by head
// dimension, which their names carry) in the built-in suite.
TEST(StudySplits, TheNewFamiliesSplitByOpTypeInTheBuiltInSuite) {
  util::TempDir dir;
  auto assigned = write_split_suite(
      task::default_tasks_dir(),
      {{.name = "low_precision_and_decode", .op_types = {"gemm_fp8", "mha_decode"}}},
      dir.path() / "out");
  ASSERT_TRUE(assigned) << assigned.error().message;
  int held = 0;
  for (const auto& [name, split] : *assigned) {
    const bool new_family = name.rfind("gemm_fp8_", 0) == 0 || name.rfind("mha_decode_", 0) == 0;
    EXPECT_EQ(split, new_family ? "low_precision_and_decode" : "train") << name;
    held += new_family ? 1 : 0;
  }
  EXPECT_EQ(held, 6);
  auto copy = util::read_file(dir.path() / "out/mha_decode/mha_decode_b16_d128.json");
  ASSERT_TRUE(copy);
  EXPECT_EQ(Json::parse(*copy)["split"], "heldout");
  EXPECT_EQ(split_of(Json{{"name", "mha_decode_b16_d128"}, {"op_type", "mha_decode"}},
                     {{.name = "d128", .head_dims = {128}}}),
            "d128");
}

TEST(StudyPairedTests, McNemarExactMatchesTheBinomialTail) {
  EXPECT_DOUBLE_EQ(mcnemar_exact(0, 0).p, 1.0);
  EXPECT_DOUBLE_EQ(mcnemar_exact(0, 6).p, 2.0 / 64);  // 2 * P(X <= 0), n = 6
  EXPECT_DOUBLE_EQ(mcnemar_exact(1, 1).p, 1.0);
  EXPECT_NEAR(mcnemar_exact(2, 10).p, 0.0385742, 1e-6);  // 2 * 79 / 4096
}

TEST(StudyPairedTests, SignFlipIsExactForFewPairsAndSeededForMany) {
  const std::vector<double> five_up = {1, 1, 1, 1, 1};
  auto exact = sign_flip_test(five_up);
  EXPECT_DOUBLE_EQ(exact.p, 2.0 / 32);  // all plus or all minus
  EXPECT_DOUBLE_EQ(exact.mean, 1.0);
  EXPECT_DOUBLE_EQ(sign_flip_test(std::vector<double>{0, 0, 0}).p, 1.0);
  std::vector<double> many(40, 0.5);
  many[0] = -0.5;
  auto a = sign_flip_test(many), b = sign_flip_test(many);
  EXPECT_EQ(a.p, b.p);  // seeded: the same page on every run
  EXPECT_LT(a.p, 0.001);
  EXPECT_GT(a.p, 0);
}

TEST(StudyStepFolder, APartialStepIsRedoneAndAFinishedOneNeverReplaced) {
  util::TempDir dir;
  StepFolder step(dir.path(), "train", "balanced");
  EXPECT_FALSE(step.done());
  auto partial = step.begin();
  ASSERT_TRUE(partial);
  util::write_file_atomic(*partial / "half", "x");
  // As after a kill: begin again starts from an empty folder.
  partial = step.begin();
  ASSERT_TRUE(partial);
  EXPECT_FALSE(fs::exists(*partial / "half"));
  util::write_file_atomic(*partial / "card", "done");
  ASSERT_TRUE(step.publish());
  EXPECT_TRUE(step.done());
  EXPECT_FALSE(fs::exists(step.partial()));
  EXPECT_EQ(*util::read_file(step.out() / "card"), "done");
  ASSERT_TRUE(step.begin());
  EXPECT_FALSE(step.publish());  // the finished step stays
  EXPECT_EQ(*util::read_file(step.out() / "card"), "done");
}

TEST(StudySteps, EveryVariantHasDataAndARunAndOnlyTrainedOnesATrainingStep) {
  StudyFile study;
  study.base.name = "base";
  study.variants = {{.name = "a"}, {.name = "b", .retrieval = true}};
  EXPECT_EQ(step_labels(study), (std::vector<std::string>{"suite/tasks", "run/base", "data/a",
                                                          "train/a", "run/a", "data/b", "run/b"}));
}

// The page from the step folders a study leaves: the base model's run and one trained
// variant's, on one train task and one held-out task.
// A study of one variant whose step folders are written by hand: the suite's splits, a base and
// a tuned run of two tasks, the variant's data counts.
StudyFile small_study(const util::TempDir& dir) {
  StudyFile study;
  study.path = dir.path() / "small.yaml";
  study.out = dir.path() / "out";
  study.base.name = "base";
  study.variants = {{.name = "tuned", .teacher = "t"}};
  study.heldout = {{.name = "wide", .tasks = {"gemm_n4096_k4096"}}};
  study.published = dir.path() / "no-published";
  util::write_file_atomic(study.out / "steps/suite/tasks/splits.json",
                          Json{{"gemm_n7168_k5120", "train"}, {"gemm_n4096_k4096", "wide"}}.dump());
  for (const char* side : {"base", "tuned"}) {
    std::vector<agent::Trajectory> trajectories;
    for (const char* task : {"gemm_n7168_k5120", "gemm_n4096_k4096"}) {
      trajectories.push_back(report::testing::make_trajectory(
          {.model = side,
           .task = task,
           .turns = {report::testing::fails(eval::Verdict::kCompileError),
                     report::testing::passed(1.5)}}));
    }
    report::testing::write_run(study.out / "steps/run" / side / "run", trajectories);
  }
  util::write_file_atomic(study.out / "steps/data/tuned/data.json",
                          Json{{"train", {{"gemm_n7168_k5120", 3}}}, {"verified_train", 0}}.dump());
  return study;
}

TEST(StudyComparison, WritesThePageFromTheStepFolders) {
  util::TempDir dir;
  const StudyFile study = small_study(dir);
  auto written = write_comparison(study);
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_EQ(*written, study.out / "comparison");
  auto markdown = util::read_file(*written / "comparison.md");
  ASSERT_TRUE(markdown) << markdown.error().message;
  for (const char* line : {"study file: small.yaml", "base model: base; variants: tuned",
                           "split train: gemm_n7168_k5120", "split wide: gemm_n4096_k4096",
                           "tuned: every training row is unverified",
                           "no-published: no such folder (published figures left out)"})
    EXPECT_NE(markdown->find(line), std::string::npos) << line << "\n" << *markdown;
  auto tables = util::read_file(*written / "comparison.json");
  ASSERT_TRUE(tables);
  const Json json = Json::parse(*tables);
  ASSERT_TRUE(json.is_array());
  EXPECT_EQ(json.size(), 4u);  // training, replies, metrics, paired tests; no published table
  for (const auto& table : json) {
    const std::string name = table.at("name").get<std::string>();
    EXPECT_TRUE(fs::exists(*written / "tables" / (name + ".csv"))) << name;
    EXPECT_TRUE(fs::exists(*written / "tables" / (name + ".json"))) << name;
  }
  // How far the replies got: turn 1 a COMPILE_ERROR (code, not compiled), turn 2 PASSED.
  const Json* replies = nullptr;
  for (const auto& table : json)
    if (table.at("name") == "replies") replies = &table;
  ASSERT_NE(replies, nullptr);
  int checked = 0;
  for (const auto& row : replies->at("rows")) {
    if (row.at("model") != "base" || row.at("split") != "train") continue;
    const int turns = row.at("turns").get<int>();
    EXPECT_EQ(row.at("with_code_k"), 1) << turns;
    EXPECT_EQ(row.at("compiled_k"), turns == 1 ? 0 : 1) << turns;
    EXPECT_EQ(row.at("static_verified_k"), turns == 1 ? 0 : 1) << turns;
    EXPECT_EQ(row.at("with_code_n"), 1) << turns;
    ++checked;
  }
  EXPECT_EQ(checked, 8);  // turn limits 1 to 8 (the grid's turns); from 2 on, turn 2's state
  EXPECT_NE(markdown->find("How far the replies got"), std::string::npos);
  EXPECT_TRUE(fs::exists(*written / "comparison.html"));
}

// Damaged step files: a splits.json of the wrong shape is named; data counts of the wrong types
// leave their cells empty (and no banner) instead of throwing.
TEST(StudyComparison, DamagedStepFilesAreNamedOrLeftEmpty) {
  util::TempDir dir;
  const StudyFile study = small_study(dir);
  util::write_file_atomic(study.out / "steps/data/tuned/data.json",
                          R"({"train": {"gemm_n7168_k5120": "three"}, "verified_train": "no"})");
  auto written = write_comparison(study);
  ASSERT_TRUE(written) << written.error().message;
  auto markdown = util::read_file(*written / "comparison.md");
  ASSERT_TRUE(markdown);
  EXPECT_EQ(markdown->find("every training row is unverified"), std::string::npos);

  util::write_file_atomic(study.out / "steps/suite/tasks/splits.json",
                          R"({"gemm_n7168_k5120": 3})");
  auto refused = write_comparison(study);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("splits.json: expected an object of task: split"),
            std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace ptxbench::study
