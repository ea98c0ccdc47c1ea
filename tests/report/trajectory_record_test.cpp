// Reading trajectory files: the committed hand-made run in data/mini_run (written once from
// hand-built Evaluations with the agent's own to_json) and files broken in the ways a killed or
// foreign writer could leave them.
#include "ptxbench/report/trajectory_record.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ptxbench/report/run_reader.hpp"
#include "ptxbench/util/fs.hpp"
#include "trajectory_builder.hpp"

namespace ptxbench::report {
namespace {
namespace fs = std::filesystem;
using eval::Verdict;

const fs::path kMiniRun = fs::path(PTXBENCH_TEST_DATA_DIR) / "mini_run";

TEST(TrajectoryRecord, ReadsTheCommittedMiniRun) {
  std::vector<std::string> lines;
  auto runs = read_runs({RunInput{.dir = kMiniRun, .label = "mini"}},
                        {.every = 1, .report = [&](std::string_view l) { lines.emplace_back(l); }});
  ASSERT_TRUE(runs) << runs.error().message;
  EXPECT_TRUE(runs->warnings.empty());
  ASSERT_EQ(runs->trajectories.size(), 3u);
  ASSERT_EQ(runs->runs.size(), 1u);
  EXPECT_EQ(runs->runs[0].files, 3u);
  EXPECT_GE(lines.size(), 2u);  // progress every file, then the total
  const auto& first = runs->trajectories[0];
  EXPECT_EQ(first.run, "mini");
  EXPECT_EQ(first.model, "model-x");
  EXPECT_EQ(first.task, "gemm_n7168_k5120");
  EXPECT_EQ(first.arch, "hopper");
  EXPECT_EQ(first.context, "none");
  EXPECT_EQ(first.split, "train");
  ASSERT_EQ(first.turns.size(), 2u);
  EXPECT_EQ(first.turns[0].verdict, Verdict::kCompileError);
  EXPECT_EQ(first.turns[0].compile_error, CompileErrorKind::kUndefinedIdentifier);
  EXPECT_FALSE(first.turns[0].compiled);
  EXPECT_EQ(first.turns[1].verdict, Verdict::kPassed);
  EXPECT_TRUE(first.turns[1].any_requested_executed);
  EXPECT_EQ(first.turns[1].speedup, 1.05);
  EXPECT_EQ(first.turns[1].prompt_tokens, 1000);
  // The held-out trajectory does not record its split.
  const auto& heldout = runs->trajectories[2];
  EXPECT_EQ(heldout.task, "mha_fwd_lse_d96");
  EXPECT_EQ(heldout.split, "");
  EXPECT_EQ(heldout.turns[0].verdict, Verdict::kNotRun);
  EXPECT_TRUE(heldout.turns[0].compiled);
  EXPECT_FALSE(heldout.turns[0].correct());
}

TEST(TrajectoryRecord, TheConversationIsNotRead) {
  auto j = agent::to_json(testing::make_trajectory({.turns = {testing::passed(1.0)}}));
  j["messages"].push_back({{"not", "a message"}});  // the agent's reader would refuse this
  auto record = parse_trajectory(j.dump(), "t.json");
  ASSERT_TRUE(record) << record.error().message;
  EXPECT_EQ(record->turns.size(), 1u);
}

TEST(TrajectoryRecord, BrokenFilesAreErrorsNamingTheFile) {
  auto j = agent::to_json(testing::make_trajectory({.turns = {testing::passed(1.0)}}));
  EXPECT_FALSE(parse_trajectory("{\"info\": ", "cut.json"));
  auto bad_eval = j;
  bad_eval["turns"][0]["evaluation"]["verdict"] = "GREAT";
  auto result = parse_trajectory(bad_eval.dump(), "bad.json");
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("bad.json"), std::string::npos);
  auto no_info = j;
  no_info.erase("info");
  EXPECT_FALSE(parse_trajectory(no_info.dump(), "x.json"));
}

TEST(RunReader, SkipsUnreadableFilesWithAWarningAndRejectsNonRuns) {
  util::TempDir dir;
  testing::write_run(dir.path(), {testing::make_trajectory({.turns = {testing::passed(1.0)}})});
  util::write_file_atomic(dir.path() / "trajectories" / "broken.json", "{");
  auto runs = read_runs({RunInput{.dir = dir.path(), .label = "r"}}, {});
  ASSERT_TRUE(runs);
  EXPECT_EQ(runs->trajectories.size(), 1u);
  ASSERT_EQ(runs->warnings.size(), 1u);
  EXPECT_NE(runs->warnings[0].find("broken.json"), std::string::npos);
  EXPECT_FALSE(read_runs({RunInput{.dir = dir.path() / "trajectories", .label = "x"}}, {}));
  EXPECT_FALSE(read_runs({RunInput{.dir = "/nonexistent", .label = "x"}}, {}));
}

TEST(RunReader, LabelsAreUnique) {
  auto runs = label_runs({"a/run", "b/run", "c/other/"}, {});
  EXPECT_EQ(runs[0].label, "run");
  EXPECT_EQ(runs[1].label, "run-2");
  EXPECT_EQ(runs[2].label, "other");
  EXPECT_EQ(label_runs({"a/run"}, {"base"})[0].label, "base");
}

}  // namespace
}  // namespace ptxbench::report
