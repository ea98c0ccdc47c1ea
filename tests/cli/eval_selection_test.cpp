// `ptxbench eval --task` patterns (names, comma lists, globs) and `--time-workloads` specs
// checked against the selected tasks.
#include "ptxbench/cli/eval_selection.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ptxbench::cli {
namespace {
using ::testing::HasSubstr;

std::vector<task::Task> suite() {
  std::vector<task::Task> tasks;
  auto add = [&tasks](std::string name, std::vector<std::string> workloads) {
    task::Task t;
    t.name = std::move(name);
    for (auto& w : workloads) t.workloads.push_back({.name = w, .headline = w == "M8192"});
    tasks.push_back(std::move(t));
  };
  add("gemm_n128_k2048", {"M70", "M8192", "M8828"});
  add("gemm_n7168_k5120", {"M70", "M8192", "M8828", "M972_spiky"});
  add("mha_fwd_lse_d128", {"B1_S512", "B2_S4096"});
  return tasks;
}

std::vector<std::string> names(const std::vector<const task::Task*>& tasks) {
  std::vector<std::string> out;
  for (const auto* t : tasks) out.push_back(t->name);
  return out;
}

TEST(SelectTasks, NamesCommaListsAndRepeatsKeepTheirOrderOnce) {
  const auto tasks = suite();
  auto one = select_tasks(tasks, {"gemm_n7168_k5120"});
  ASSERT_TRUE(one.has_value()) << one.error().message;
  EXPECT_EQ(names(*one), std::vector<std::string>{"gemm_n7168_k5120"});

  auto several = select_tasks(tasks, {"mha_fwd_lse_d128, gemm_n7168_k5120", "mha_fwd_lse_d128"});
  ASSERT_TRUE(several.has_value()) << several.error().message;
  EXPECT_EQ(names(*several), (std::vector<std::string>{"mha_fwd_lse_d128", "gemm_n7168_k5120"}));
}

TEST(SelectTasks, GlobsMatchInSuiteOrder) {
  const auto tasks = suite();
  auto gemm = select_tasks(tasks, {"gemm_*"});
  ASSERT_TRUE(gemm.has_value()) << gemm.error().message;
  EXPECT_EQ(names(*gemm), (std::vector<std::string>{"gemm_n128_k2048", "gemm_n7168_k5120"}));
  auto mixed = select_tasks(tasks, {"mha_*,gemm_n7168_k5120", "gemm_n?28_*"});
  ASSERT_TRUE(mixed.has_value()) << mixed.error().message;
  EXPECT_EQ(names(*mixed),
            (std::vector<std::string>{"mha_fwd_lse_d128", "gemm_n7168_k5120", "gemm_n128_k2048"}));
  auto all = select_tasks(tasks, {"*"});
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->size(), 3u);
}

TEST(SelectTasks, UnknownNamesAndEmptyGlobsAreErrors) {
  const auto tasks = suite();
  auto typo = select_tasks(tasks, {"gemm_n7168_k5120,gemm_n7168"});
  ASSERT_FALSE(typo.has_value());
  EXPECT_THAT(typo.error().message, HasSubstr("no task named 'gemm_n7168'"));
  EXPECT_THAT(typo.error().message, HasSubstr("did you mean gemm_n7168_k5120?"));
  auto glob = select_tasks(tasks, {"conv_*"});
  ASSERT_FALSE(glob.has_value());
  EXPECT_THAT(glob.error().message, HasSubstr("no task matches 'conv_*'"));
  EXPECT_FALSE(select_tasks(tasks, {" , "}).has_value());
}

TEST(SelectTimedWorkloads, NamesMustExistInSomeSelectedTask) {
  const auto tasks = suite();
  auto gemm = *select_tasks(tasks, {"gemm_*"});
  auto large = select_timed_workloads("M8192,M8828", gemm);
  ASSERT_TRUE(large.has_value()) << large.error().message;
  EXPECT_EQ(large->names, (std::vector<std::string>{"M8192", "M8828"}));
  // In one selected task only: fine, the other task skips it.
  EXPECT_TRUE(select_timed_workloads("M972_spiky", gemm).has_value());
  EXPECT_TRUE(select_timed_workloads("all", gemm)->all);
  EXPECT_TRUE(select_timed_workloads("headline", gemm)->headline_only());

  auto typo = select_timed_workloads("M8192,M882", gemm);
  ASSERT_FALSE(typo.has_value());
  EXPECT_THAT(typo.error().message, HasSubstr("no selected task has a workload named 'M882'"));
  EXPECT_THAT(typo.error().message, HasSubstr("did you mean M8828?"));

  auto elsewhere = select_timed_workloads("B1_S512", gemm);  // a workload of an unselected task
  ASSERT_FALSE(elsewhere.has_value());
  EXPECT_THAT(elsewhere.error().message, HasSubstr("'B1_S512'"));

  auto empty = select_timed_workloads(",", gemm);
  ASSERT_FALSE(empty.has_value());
  EXPECT_THAT(empty.error().message, HasSubstr("--time-workloads"));
}

}  // namespace
}  // namespace ptxbench::cli
