#include "ptxbench/slurm/shard_plan.hpp"

#include <gtest/gtest.h>

#include <set>

#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::slurm {
namespace {

TEST(ShardPlan, ParsesIndexOverCount) {
  auto shard = parse_shard_spec("3/8");
  ASSERT_TRUE(shard.has_value());
  EXPECT_EQ(shard->index, 3);
  EXPECT_EQ(shard->count, 8);
  for (const char* bad : {"8/8", "-1/4", "1", "a/b", "1/0", "1/4x"})
    EXPECT_FALSE(parse_shard_spec(bad).has_value()) << bad;
  EXPECT_EQ(parse_shard_spec("4/4").error().message,
            "--shard 4/4: expected I/N with 0 <= I < N (e.g. 3/8)");
}

TEST(ShardPlan, ShardsCoverEveryTaskExactlyOnce) {
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite.has_value());
  std::vector<const task::Task*> tasks;
  for (const auto& t : *suite) tasks.push_back(&t);
  const int count = shard_count(tasks.size(), 4);
  EXPECT_EQ(count, 4);
  std::multiset<const task::Task*> seen;
  for (int i = 0; i < count; ++i) {
    for (const auto* t : shard_tasks(tasks, {.index = i, .count = count})) seen.insert(t);
  }
  EXPECT_EQ(seen.size(), tasks.size());
  for (const auto* t : tasks) EXPECT_EQ(seen.count(t), 1u) << t->name;
}

TEST(ShardPlan, OneShardPerTaskByDefaultAndNoMoreShardsThanTasks) {
  EXPECT_EQ(shard_count(5, 0), 5);
  EXPECT_EQ(shard_count(5, 9), 5);
  EXPECT_EQ(shard_count(0, 0), 1);
}

}  // namespace
}  // namespace ptxbench::slurm
