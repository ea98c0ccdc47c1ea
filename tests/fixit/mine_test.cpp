// Mining a run directory written with the run's own types: failing turns become rows with their
// prompts, reply, code and feedback; passing and NOT_RUN turns do not (unless a replayed
// control declares its verdict and NOT_RUN turns are asked for); duplicates collapse.
#include "ptxbench/fixit/mine.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../agent/sample_evaluations.hpp"
#include "ptxbench/agent/run_directory.hpp"
#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/fixit/repair.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::fixit {
namespace {

namespace fs = std::filesystem;
using eval::Verdict;

agent::Trajectory trajectory_of(
    const std::string& model, int sample,
    const std::vector<std::pair<std::string, eval::Evaluation>>& turns) {
  agent::Trajectory t;
  t.info.id = fmt::format("{}__gemm_n7168_k5120__hopper__none__s{}", model, sample);
  t.info.model = model;
  t.info.task = "gemm_n7168_k5120";
  t.info.status = agent::TrajectoryStatus::kFinished;
  t.messages = {{.role = "system", .content = "SYSTEM"}, {.role = "user", .content = "TASK"}};
  int turn = 1;
  for (const auto& [code, evaluation] : turns) {
    t.messages.push_back({.role = "assistant",
                          .content = "Reply.\n```cuda\n" + code + "\n```\n",
                          .turn = turn,
                          .extra = {{"source", "solutions/broken/x.cu"}}});
    t.messages.push_back(
        {.role = "user", .content = "FEEDBACK " + std::to_string(turn), .turn = turn});
    t.turns.push_back(
        {.turn = turn, .evaluation = evaluation, .feedback = "FEEDBACK " + std::to_string(turn)});
    ++turn;
  }
  return t;
}

class MineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto suite = task::load_suite(task::default_tasks_dir());
    ASSERT_TRUE(suite);
    suite_ = std::move(*suite);
    auto dir = agent::RunDirectory::open(run_);
    ASSERT_TRUE(dir);
    dir->write_run_json(
        {{"config",
          {{"solutions",
            {{{"id", "broken__gemm_n7168_k5120__hopper__none__s0"}, {"expect", "TIMEOUT"}}}}}}});
    dir->save_trajectory(trajectory_of("m", 0,
                                       {{"int a;", testing::compile_error()},
                                        {"int  a; // same", testing::compile_error()},
                                        {"int b;", testing::incorrect()},
                                        {"int c;", testing::passed(1.2)}}));
    dir->save_trajectory(trajectory_of("broken", 0, {{"int d;", testing::not_run()}}));
  }
  util::TempDir work_;
  fs::path run_ = work_.path() / "run";
  std::vector<task::Task> suite_;
};

TEST_F(MineTest, FailingTurnsWithWhatTheModelSaw) {
  auto result = mine_runs({run_}, suite_, {});
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->turns_seen, 5);
  EXPECT_EQ(result->duplicates, 1);  // turn 2 differs from turn 1 only in whitespace and comment
  ASSERT_EQ(result->rows.size(), 2u);
  const MinedRow& row = result->rows[0];
  EXPECT_EQ(row.verdict, Verdict::kCompileError);
  EXPECT_EQ(row.source.turn, 1);
  EXPECT_EQ(row.source.run, run_.string());
  EXPECT_EQ(row.source.reply_file, "solutions/broken/x.cu");
  EXPECT_EQ(row.system_prompt, "SYSTEM");
  EXPECT_EQ(row.task_prompt, "TASK");
  EXPECT_EQ(row.code, "int a;\n");
  EXPECT_EQ(row.feedback, "FEEDBACK 1");
  EXPECT_EQ(row.split, "train");
  EXPECT_EQ(result->rows[1].verdict, Verdict::kIncorrectNumerical);
  EXPECT_EQ(result->rows[1].source.turn, 3);
  auto manifest = manifest_of(*result);
  EXPECT_EQ(manifest["counts"]["gemm_n7168_k5120"]["COMPILE_ERROR"]["1"], 1);
  EXPECT_EQ(manifest["counts"]["gemm_n7168_k5120"]["INCORRECT_NUMERICAL"]["3"], 1);
}

// A trajectory file is input: a reply whose recorded source is not text is mined without it.
TEST_F(MineTest, AReplySourceThatIsNotTextIsLeftOut) {
  const fs::path other = work_.path() / "other-run";
  auto dir = agent::RunDirectory::open(other);
  ASSERT_TRUE(dir);
  dir->write_run_json({{"config", nlohmann::json::object()}});
  auto t = trajectory_of("odd", 0, {{"int e;", testing::compile_error()}});
  t.messages[2].extra = {{"source", 5}};
  dir->save_trajectory(t);
  auto result = mine_runs({other}, suite_, {});
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->rows.size(), 1u);
  EXPECT_EQ(result->rows[0].source.reply_file, "");
}

TEST_F(MineTest, Filters) {
  auto by_verdict = mine_runs({run_}, suite_, {.verdicts = {Verdict::kIncorrectNumerical}});
  ASSERT_TRUE(by_verdict);
  ASSERT_EQ(by_verdict->rows.size(), 1u);
  auto by_turn = mine_runs({run_}, suite_, {.turns = {1}});
  ASSERT_EQ(by_turn->rows.size(), 1u);
  EXPECT_EQ(mine_runs({run_}, suite_, {.tasks = {"mha_*"}})->rows.size(), 0u);
  EXPECT_EQ(mine_runs({run_}, suite_, {.models = {"b*"}})->rows.size(), 0u);
}

TEST_F(MineTest, NotRunControlsCountAsTheirDeclaredVerdictWhenAskedFor) {
  auto result = mine_runs({run_}, suite_, {.models = {"broken"}, .include_not_run = true});
  ASSERT_TRUE(result);
  ASSERT_EQ(result->rows.size(), 1u);
  EXPECT_EQ(result->rows[0].verdict, Verdict::kNotRun);
  EXPECT_EQ(verdict_kind(result->rows[0]), Verdict::kTimeout);
}

// A model that rarely writes code: its replies without a code block are rows only when asked
// for, with empty code, told apart by their text; the repair prompt shows the reply.
TEST_F(MineTest, RepliesWithoutCodeAreRowsOnlyWhenAskedFor) {
  const fs::path other = work_.path() / "prose-run";
  auto dir = agent::RunDirectory::open(other);
  ASSERT_TRUE(dir);
  dir->write_run_json({{"config", nlohmann::json::object()}});
  for (int sample = 0; sample < 3; ++sample) {
    auto t = trajectory_of("smol", sample, {{"", testing::no_code()}});
    t.messages[2].content = sample == 2 ? "A GEMM multiplies." : "I would use tiles.";
    dir->save_trajectory(t);
  }
  auto plain = mine_runs({other}, suite_, {});
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->rows.size(), 0u);
  auto asked = mine_runs({other}, suite_, {.include_no_code = true});
  ASSERT_TRUE(asked) << asked.error().message;
  ASSERT_EQ(asked->rows.size(), 2u);
  EXPECT_EQ(asked->duplicates, 1);
  EXPECT_EQ(asked->rows[0].verdict, Verdict::kNoCode);
  EXPECT_EQ(asked->rows[0].code, "");
  EXPECT_EQ(asked->rows[0].reply, "I would use tiles.");
  const std::string request = repair_request(asked->rows[0]);
  EXPECT_NE(request.find("The reply held no code block"), std::string::npos);
  EXPECT_NE(request.find("I would use tiles."), std::string::npos);
  EXPECT_EQ(request.find("```cuda"), std::string::npos);
  // Replies with code are still mined as before alongside.
  EXPECT_EQ(mine_runs({run_}, suite_, {.include_no_code = true})->rows.size(), 2u);
}

TEST_F(MineTest, RowsRoundTripThroughTheFolder) {
  auto result = mine_runs({run_}, suite_, {});
  auto folder = FixitFolder::open(work_.path() / "fixit");
  ASSERT_TRUE(folder);
  folder->write_mined(result->rows);
  auto back = folder->read_mined();
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->size(), result->rows.size());
  EXPECT_EQ(to_json((*back)[0]), to_json(result->rows[0]));
  // A second process cannot open the same folder.
  EXPECT_FALSE(FixitFolder::open(work_.path() / "fixit"));
}

TEST_F(MineTest, BadInputIsNamed) {
  EXPECT_NE(mine_runs({work_.path() / "nothing"}, suite_, {}).error().message.find("no run.json"),
            std::string::npos);
  auto folder = FixitFolder::open(work_.path() / "bad");
  util::write_file_atomic(folder->mined_path(), "{\"id\": 3}\n");
  auto rows = folder->read_mined();
  ASSERT_FALSE(rows);
  EXPECT_NE(rows.error().message.find("mined.jsonl:1: id: wrong type"), std::string::npos)
      << rows.error().message;
}

TEST_F(MineTest, ABadDeclaredSolutionInRunJsonIsNamed) {
  auto refused = [this](const nlohmann::json& run_json) {
    util::write_file_atomic(run_ / "run.json", run_json.dump());
    auto result = mine_runs({run_}, suite_, {});
    return result ? std::string("accepted") : result.error().message;
  };
  const std::string where = (run_ / "run.json").string() + ": ";
  auto with_solution = [](nlohmann::json entry) {
    return nlohmann::json{{"config", {{"solutions", {std::move(entry)}}}}};
  };
  EXPECT_EQ(refused(with_solution({{"id", 3}, {"expect", "TIMEOUT"}})),
            where + "config.solutions[0].id: expected a string");
  EXPECT_EQ(refused(with_solution({{"id", "x"}, {"expect", 1}})),
            where + "config.solutions[0].expect: expected a string");
  EXPECT_EQ(refused(with_solution({{"id", "x"}, {"expect", "SLOW"}})),
            where + "config.solutions[0].expect: unknown verdict 'SLOW'");
  EXPECT_EQ(refused(with_solution({{"id", "x"}})), where + "config.solutions[0].expect: required");
  EXPECT_EQ(refused(with_solution({{"id", "x"}, {"expect", "TIMEOUT"}, {"reply", 2}})),
            where + "config.solutions[0].reply: expected a string");
  EXPECT_EQ(refused(with_solution({{"id", "x"}, {"expect", "TIMEOUT"}, {"expected", "PASSED"}})),
            where + "config.solutions[0].expected: unknown field");
  EXPECT_EQ(refused({{"config", {{"solutions", "all"}}}}),
            where + "config.solutions: expected a list");
  EXPECT_EQ(refused({{"config", 1}}), where + "config: expected a mapping");
  EXPECT_EQ(refused(nlohmann::json::array()), where + "expected a mapping");
  EXPECT_EQ(refused({{"config", nlohmann::json::object()}}), "accepted");
}

TEST_F(MineTest, ReadAllReadsEveryStageAndNamesTheBadFile) {
  auto result = mine_runs({run_}, suite_, {});
  ASSERT_TRUE(result) << result.error().message;
  auto folder = FixitFolder::open(work_.path() / "all");
  ASSERT_TRUE(folder);
  folder->write_mined(result->rows);
  folder->write_verified({{.mined_id = result->rows[0].id, .reason = "ok"}});
  auto rows = folder->read_all();
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(rows->mined.size(), result->rows.size());
  EXPECT_TRUE(rows->repairs.empty());  // absent file: no rows
  ASSERT_EQ(rows->verified.size(), 1u);
  EXPECT_EQ(rows->verified[0].mined_id, result->rows[0].id);
  // The same rows without the folder's lock (the report reads them so).
  auto unlocked = read_folder_rows(folder->root());
  ASSERT_TRUE(unlocked) << unlocked.error().message;
  EXPECT_EQ(unlocked->mined.size(), result->rows.size());
  util::write_file_atomic(folder->explained_path(), "{\"mined_id\": 3}\n");
  auto bad = folder->read_all();
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("explained.jsonl:1: mined_id: wrong type"), std::string::npos)
      << bad.error().message;
}

TEST(NormalizeCode, DropsCommentsAndWhitespace) {
  EXPECT_EQ(normalize_code("int  a; // x\n/* y */ int b;\n"), "int a; int b;");
}

}  // namespace
}  // namespace ptxbench::fixit
