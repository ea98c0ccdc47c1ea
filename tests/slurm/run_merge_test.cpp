// Merging shard runs: trajectories from all shards, tasks united, a mismatched configuration
// refused before anything is written, and a merge again after a shard progressed takes the
// more complete trajectory.
#include "ptxbench/slurm/run_merge.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::slurm {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

void write_shard(const fs::path& dir, const std::string& task, int turns_config,
                 std::size_t turns_done, const std::string& status) {
  json config{{"models", {"m"}}, {"tasks", {task}}, {"archs", {"hopper"}}, {"turns", turns_config}};
  util::write_file_atomic(dir / "run.json",
                          json{{"config", config},
                               {"grid", {{"tasks", {task}}, {"turns", turns_config}}},
                               {"sessions", {{{"started_at", "t"}}}}}
                              .dump());
  json trajectory{{"info", {{"id", "m__" + task}, {"status", status}}}, {"turns", json::array()}};
  for (std::size_t i = 0; i < turns_done; ++i) trajectory["turns"].push_back({{"turn", i + 1}});
  fs::create_directories(dir / "trajectories");
  util::write_file_atomic(dir / "trajectories" / ("m__" + task + ".json"), trajectory.dump());
  util::write_file_atomic(dir / "responses" / ("m__" + task) / "turn-1.md", "reply");
}

std::size_t turns_in(const fs::path& file) {
  return json::parse(*util::read_file(file))["turns"].size();
}

TEST(RunMerge, CombinesShardsAndUnitesTheirTasks) {
  util::TempDir dir;
  write_shard(dir.path() / "s0", "a", 2, 2, "finished");
  write_shard(dir.path() / "s1", "b", 2, 1, "running");
  auto summary = merge_runs({dir.path() / "s0", dir.path() / "s1"}, dir.path() / "out");
  ASSERT_TRUE(summary.has_value()) << summary.error().message;
  EXPECT_EQ(summary->added, 2u);
  const auto run = json::parse(*util::read_file(dir.path() / "out" / "run.json"));
  EXPECT_EQ(run["config"]["tasks"], (json{"a", "b"}));
  EXPECT_EQ(run["grid"]["tasks"], (json{"a", "b"}));
  EXPECT_EQ(run["sessions"].size(), 2u);
  EXPECT_TRUE(fs::exists(dir.path() / "out" / "responses" / "m__b" / "turn-1.md"));
}

TEST(RunMerge, AgainAfterAShardResumedTakesItsProgress) {
  util::TempDir dir;
  write_shard(dir.path() / "s0", "a", 2, 1, "running");
  ASSERT_TRUE(merge_runs({dir.path() / "s0"}, dir.path() / "out").has_value());
  write_shard(dir.path() / "s0", "a", 2, 2, "finished");
  auto again = merge_runs({dir.path() / "s0"}, dir.path() / "out");
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->updated, 1u);
  EXPECT_EQ(turns_in(dir.path() / "out" / "trajectories" / "m__a.json"), 2u);
  auto twice = merge_runs({dir.path() / "s0"}, dir.path() / "out");
  EXPECT_EQ(twice->unchanged, 1u);
  const auto run = json::parse(*util::read_file(dir.path() / "out" / "run.json"));
  EXPECT_EQ(run["sessions"].size(), 1u);
}

TEST(RunMerge, RefusesAShardOfAnotherConfigurationAndWritesNothing) {
  util::TempDir dir;
  write_shard(dir.path() / "s0", "a", 2, 1, "finished");
  write_shard(dir.path() / "s1", "b", 4, 1, "finished");
  auto summary = merge_runs({dir.path() / "s0", dir.path() / "s1"}, dir.path() / "out");
  ASSERT_FALSE(summary.has_value());
  EXPECT_NE(summary.error().message.find("s1/run.json: config: turns differs"), std::string::npos)
      << summary.error().message;
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
}

TEST(RunMerge, ANonRunIsAnError) {
  util::TempDir dir;
  auto summary = merge_runs({dir.path()}, dir.path() / "out");
  ASSERT_FALSE(summary.has_value());
  EXPECT_NE(summary.error().message.find("not a run"), std::string::npos);
}

// Wrongly typed or incomplete input is an error naming the file and the field, and the merged
// folder is left as it was (here: never created), however far the merge had got.
TEST(RunMerge, AWronglyTypedRunJsonIsAnErrorNamingTheField) {
  util::TempDir dir;
  write_shard(dir.path() / "s0", "a", 2, 1, "finished");
  util::write_file_atomic(dir.path() / "s1" / "run.json",
                          R"({"config": "x", "grid": {"tasks": ["b"]}})");
  auto summary = merge_runs({dir.path() / "s0", dir.path() / "s1"}, dir.path() / "out");
  ASSERT_FALSE(summary.has_value());
  EXPECT_EQ(summary.error().message,
            (dir.path() / "s1" / "run.json").string() + ": config: expected a JSON object");
  util::write_file_atomic(dir.path() / "s1" / "run.json",
                          R"({"config": {"tasks": "b"}, "grid": {"tasks": ["b"]}})");
  summary = merge_runs({dir.path() / "s0", dir.path() / "s1"}, dir.path() / "out");
  ASSERT_FALSE(summary.has_value());
  EXPECT_EQ(summary.error().message,
            (dir.path() / "s1" / "run.json").string() + ": config.tasks: expected an array");
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
}

TEST(RunMerge, AMergedRunWithoutConfigIsAnError) {
  util::TempDir dir;
  write_shard(dir.path() / "s0", "a", 2, 1, "finished");
  util::write_file_atomic(dir.path() / "out" / "run.json", R"({"grid": {}})");
  auto summary = merge_runs({dir.path() / "s0"}, dir.path() / "out");
  ASSERT_FALSE(summary.has_value());
  EXPECT_EQ(summary.error().message,
            (dir.path() / "out" / "run.json").string() + ": config: missing");
  EXPECT_EQ(*util::read_file(dir.path() / "out" / "run.json"), R"({"grid": {}})");
}

TEST(RunMerge, AMalformedTrajectoryLeavesNoHalfWrittenFolder) {
  util::TempDir dir;
  write_shard(dir.path() / "s0", "a", 2, 1, "finished");
  write_shard(dir.path() / "s1", "b", 2, 1, "finished");
  write_shard(dir.path() / "s2", "c", 2, 1, "finished");
  const auto bad = dir.path() / "s2" / "trajectories" / "m__c.json";
  util::write_file_atomic(bad, R"({"info": ["not", "an", "object"], "turns": []})");
  auto summary =
      merge_runs({dir.path() / "s0", dir.path() / "s1", dir.path() / "s2"}, dir.path() / "out");
  ASSERT_FALSE(summary.has_value());
  EXPECT_EQ(summary.error().message, bad.string() + ": info: expected a JSON object");
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
  util::write_file_atomic(bad, R"({"info": {"status": 3}, "turns": {}})");
  summary =
      merge_runs({dir.path() / "s0", dir.path() / "s1", dir.path() / "s2"}, dir.path() / "out");
  ASSERT_FALSE(summary.has_value());
  EXPECT_EQ(summary.error().message, bad.string() + ": info.status: expected a string");
  util::write_file_atomic(bad, "{");
  summary =
      merge_runs({dir.path() / "s0", dir.path() / "s1", dir.path() / "s2"}, dir.path() / "out");
  ASSERT_FALSE(summary.has_value());
  EXPECT_EQ(summary.error().message, bad.string() + ": not valid JSON");
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), {}), 3) << "no staging left over";
}

TEST(RunMerge, OutAtAFileIsAnError) {
  util::TempDir dir;
  write_shard(dir.path() / "s0", "a", 2, 1, "finished");
  util::write_file_atomic(dir.path() / "file", "x");
  auto summary = merge_runs({dir.path() / "s0"}, dir.path() / "file");
  ASSERT_FALSE(summary.has_value());
  EXPECT_EQ(summary.error().message,
            (dir.path() / "file").string() + ": exists and is not a folder");
}

}  // namespace
}  // namespace ptxbench::slurm
