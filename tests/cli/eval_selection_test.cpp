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
  auto timed = [](std::string_view spec) { return eval::parse_timed_workloads(spec).value(); };
  EXPECT_EQ(unknown_timed_workload(timed("M8192,M8828"), gemm), std::nullopt);
  // In one selected task only: fine, the other task skips it.
  EXPECT_EQ(unknown_timed_workload(timed("M972_spiky"), gemm), std::nullopt);
  EXPECT_EQ(unknown_timed_workload(timed("all"), gemm), std::nullopt);
  EXPECT_EQ(unknown_timed_workload(timed("headline"), gemm), std::nullopt);

  auto typo = unknown_timed_workload(timed("M8192,M882"), gemm);
  ASSERT_TRUE(typo.has_value());
  EXPECT_THAT(*typo, HasSubstr("no selected task has a workload named 'M882'"));
  EXPECT_THAT(*typo, HasSubstr("did you mean M8828?"));

  // A workload of an unselected task.
  auto elsewhere = unknown_timed_workload(timed("B1_S512"), gemm);
  ASSERT_TRUE(elsewhere.has_value());
  EXPECT_THAT(*elsewhere, HasSubstr("'B1_S512'"));
}

}  // namespace
}  // namespace ptxbench::cli
