// --time-workloads: the spec, the workloads it selects in a task, and the geometric mean.
#include "ptxbench/eval/timing/timed_workloads.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace ptxbench::eval {
namespace {

task::Task task_with(std::vector<std::pair<std::string, bool>> workloads) {
  task::Task t;
  t.name = "gemm_fake";
  for (auto& [name, headline] : workloads)
    t.workloads.push_back({.name = name, .headline = headline});
  return t;
}

TEST(TimedWorkloads, SpecsParse) {
  auto headline = parse_timed_workloads("headline");
  ASSERT_TRUE(headline.has_value());
  EXPECT_TRUE(headline->headline_only());
  EXPECT_EQ(headline->spec(), "headline");

  auto all = parse_timed_workloads("all");
  ASSERT_TRUE(all.has_value());
  EXPECT_TRUE(all->all);
  EXPECT_EQ(all->spec(), "all");

  auto named = parse_timed_workloads(" M8192, M8828 ,M8192,");
  ASSERT_TRUE(named.has_value());
  EXPECT_EQ(named->names, (std::vector<std::string>{"M8192", "M8828"}));
  EXPECT_FALSE(named->headline_only());
  EXPECT_EQ(named->spec(), "M8192,M8828");

  auto with_all = parse_timed_workloads("M70,all");
  ASSERT_TRUE(with_all.has_value());
  EXPECT_TRUE(with_all->all);
  EXPECT_TRUE(with_all->names.empty());

  auto with_headline = parse_timed_workloads("headline,M70");
  ASSERT_TRUE(with_headline.has_value());
  EXPECT_EQ(with_headline->names, std::vector<std::string>{"M70"});
}

TEST(TimedWorkloads, EmptySpecsAreErrors) {
  for (const char* spec : {"", " ", ",", " , "}) {
    auto parsed = parse_timed_workloads(spec);
    ASSERT_FALSE(parsed.has_value()) << "'" << spec << "'";
    EXPECT_NE(parsed.error().message.find("expected headline, all"), std::string::npos);
  }
}

TEST(TimedWorkloads, SelectionAlwaysHoldsTheHeadlineInTaskOrder) {
  const auto task = task_with({{"M70", false}, {"M8192", true}, {"M8828", false}});
  EXPECT_EQ(TimedWorkloads{}.select(task), std::vector<std::size_t>{1});
  EXPECT_EQ(TimedWorkloads{.all = true}.select(task), (std::vector<std::size_t>{0, 1, 2}));
  const TimedWorkloads both{.names = {"M8828", "M70"}};
  EXPECT_EQ(both.select(task), (std::vector<std::size_t>{0, 1, 2}));
  const TimedWorkloads large{.names = {"M8828"}};
  EXPECT_EQ(large.select(task), (std::vector<std::size_t>{1, 2}));
  const TimedWorkloads absent{.names = {"M2379"}};
  EXPECT_EQ(absent.select(task), std::vector<std::size_t>{1});
}

TEST(TimedWorkloads, GeometricMeanOverTimedWorkloadsOnly) {
  std::vector<WorkloadResult> workloads{{.workload = "a", .speedup = 0.5},
                                        {.workload = "b"},
                                        {.workload = "c", .speedup = 2.0},
                                        {.workload = "d", .speedup = 0.9}};
  ASSERT_TRUE(geometric_mean_speedup(workloads).has_value());
  EXPECT_NEAR(*geometric_mean_speedup(workloads), std::cbrt(0.5 * 2.0 * 0.9), 1e-12);
  EXPECT_EQ(timed_count(workloads), 3u);
  EXPECT_FALSE(geometric_mean_speedup({{.workload = "b"}}).has_value());
  EXPECT_EQ(timed_count({}), 0u);
}

}  // namespace
}  // namespace ptxbench::eval
