#include "ptxbench/report/published.hpp"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "ptxbench/util/fs.hpp"
#include "trajectory_builder.hpp"

namespace ptxbench::report {
namespace {
namespace fs = std::filesystem;

TEST(Published, TaskNamesMapToOurs) {
  EXPECT_EQ(our_task_name("mha_with_lse_d128"), "mha_fwd_lse_d128");
  EXPECT_EQ(our_task_name("mha_with_lse_d128_causal"), "mha_fwd_lse_d128_causal");
  EXPECT_EQ(our_task_name("mha_bwd_d128"), "mha_bwd_d128");
  EXPECT_EQ(our_task_name("gemm_n7168_k5120"), "gemm_n7168_k5120");
}

TEST(Published, ParsesQuotedFieldsAndMergesTheThreeFiles) {
  util::TempDir dir;
  const std::string header = "model,arch,definition,exp_dir,turn_limit,n_trajectories";
  util::write_file_atomic(dir.path() / "correct.csv",
                          header +
                              ",correct,correctness_rate\n"
                              "\"Model, tuned\",Hopper,mha_with_lse_d128,/x/run-a,1,12,3,0.25\n"
                              "\"Model, tuned\",Hopper,mha_with_lse_d128,/x/run-b,1,20,10,0.5\n");
  util::write_file_atomic(dir.path() / "arch.csv",
                          header +
                              ",correct_with_arch\n"
                              "\"Model, tuned\",hopper,mha_with_lse_d128,/x/run-a,1,12,2\n");
  util::write_file_atomic(dir.path() / "speed.csv",
                          header +
                              ",best_speedup\n"
                              "\"Model, tuned\",hopper,mha_with_lse_d128,/x/run-a/,1,12,0.91\n");
  auto rows = read_published(
      {dir.path() / "correct.csv", dir.path() / "arch.csv", dir.path() / "speed.csv"});
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 2u);  // run-a merged from three files; run-b kept apart
  const auto& a = (*rows)[0];
  EXPECT_EQ(a.model, "Model, tuned");
  EXPECT_EQ(a.arch, "hopper");
  EXPECT_EQ(a.task, "mha_fwd_lse_d128");
  EXPECT_EQ(a.definition, "mha_with_lse_d128");
  EXPECT_EQ(a.experiment, "run-a");
  EXPECT_EQ(a.trajectories, 12);
  EXPECT_EQ(a.correct, 3);
  EXPECT_EQ(a.correct_with_arch, 2);
  EXPECT_DOUBLE_EQ(*a.best_speedup, 0.91);
  const auto& b = (*rows)[1];
  EXPECT_EQ(b.experiment, "run-b");
  EXPECT_EQ(b.correct, 10);
  EXPECT_FALSE(b.correct_with_arch);
  EXPECT_FALSE(b.best_speedup);
}

TEST(Published, MalformedFilesAreErrorsThatSayWhere) {
  auto no_values = parse_published("model,arch,definition,turn_limit,n_trajectories\n", "f.csv");
  ASSERT_FALSE(no_values);
  auto missing = parse_published("model,arch,turn_limit,n_trajectories,correct\n", "f.csv");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("definition"), std::string::npos);
  auto bad_number = parse_published(
      "model,arch,definition,turn_limit,n_trajectories,best_speedup\nm,hopper,g,1,12,fast\n",
      "f.csv");
  ASSERT_FALSE(bad_number);
  EXPECT_NE(bad_number.error().message.find("row 1: best_speedup"), std::string::npos);
  auto too_many = parse_published(
      "model,arch,definition,turn_limit,n_trajectories,correct\nm,hopper,g,1,12,13\n", "f.csv");
  ASSERT_FALSE(too_many);
  auto ragged = parse_published(
      "model,arch,definition,turn_limit,n_trajectories,correct\nm,hopper,g,1,12\n", "f.csv");
  ASSERT_FALSE(ragged);
  EXPECT_FALSE(read_published({"/nonexistent/published.csv"}));
}

TEST(PublishedSharedFiles, ImportAndMergeConsistently) {
  const auto dir = testing::shared_published_dir();
  if (!dir) {
    GTEST_SKIP() << "the published results are not here (../shared/published/ptxbench-2026 "
                    "beside the source tree, or PTXBENCH_PUBLISHED_DIR); they are not part of "
                    "the repository";
  }
  const std::vector<std::string> names{"correctness_rate_by_release_date.csv",
                                       "arch_instruction_correctness_by_release_date.csv",
                                       "best_speedup_by_release_date.csv"};
  std::vector<fs::path> files;
  using Key = std::tuple<std::string, std::string, std::string, std::string, int>;
  std::map<Key, PublishedRow> single;  // each file on its own, to check the merge against
  for (const auto& name : names) {
    files.push_back(*dir / name);
    auto text = util::read_file(files.back());
    ASSERT_TRUE(text) << text.error().message;
    auto rows = parse_published(*text, files.back());
    ASSERT_TRUE(rows) << rows.error().message;
    EXPECT_FALSE(rows->empty()) << name;
    for (const auto& row : *rows) {
      auto& into = single[{row.model, row.arch, row.definition, row.experiment, row.turn_limit}];
      into.trajectories = row.trajectories;
      if (row.correct) into.correct = row.correct;
      if (row.correct_with_arch) into.correct_with_arch = row.correct_with_arch;
      if (row.best_speedup) into.best_speedup = row.best_speedup;
    }
  }
  auto merged = read_published(files);
  ASSERT_TRUE(merged) << merged.error().message;
  ASSERT_EQ(merged->size(), single.size());
  bool saw_mapped_name = false;
  for (const auto& row : *merged) {
    const auto& expected =
        single.at({row.model, row.arch, row.definition, row.experiment, row.turn_limit});
    EXPECT_EQ(row.trajectories, expected.trajectories);
    EXPECT_EQ(row.correct, expected.correct);
    EXPECT_EQ(row.correct_with_arch, expected.correct_with_arch);
    EXPECT_EQ(row.best_speedup, expected.best_speedup);
    EXPECT_TRUE(row.correct && row.correct_with_arch && row.best_speedup)
        << row.model << " " << row.definition << " t=" << row.turn_limit;
    EXPECT_LE(*row.correct_with_arch, *row.correct);  // the arch rule is stricter
    EXPECT_TRUE(row.arch == "hopper" || row.arch == "blackwell") << row.arch;
    EXPECT_EQ(row.task.find("mha_with_lse"), std::string::npos);
    saw_mapped_name = saw_mapped_name || row.definition.starts_with("mha_with_lse_d128");
  }
  EXPECT_TRUE(saw_mapped_name);
}

}  // namespace
}  // namespace ptxbench::report
