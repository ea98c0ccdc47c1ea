// The repair loop with a fake teacher and evaluator: the request carries the failing code and
// feedback under the source turn's system prompt, the first PASSED turn ends a repair, and a
// rerun takes finished repairs from the folder without asking the teacher again.
#include "ptxbench/fixit/repair.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "../agent/fakes.hpp"
#include "fixit_samples.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::fixit {
namespace {

class RepairTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto suite = task::load_suite(task::default_tasks_dir());
    ASSERT_TRUE(suite);
    suite_ = std::move(*suite);
    for (int i = 0; i < 4; ++i)
      rows_.push_back(testing::mined_row("gemm_n7168_k5120", eval::Verdict::kCompileError, 1, i));
  }
  util::TempDir work_;
  std::vector<task::Task> suite_;
  std::vector<MinedRow> rows_;
};

TEST_F(RepairTest, RepairsStopAtTheFirstPassAndResumeWithoutNewCalls) {
  auto folder = FixitFolder::open(work_.path() / "fixit");
  ASSERT_TRUE(folder);
  // Turn 1 fails to compile, turn 2 passes.
  auto provider = std::make_shared<testing::FakeProvider>(
      [](const model::Conversation&, const model::CallContext& context) -> model::CallResult {
        return testing::code_reply(context.turn == 1 ? "broken" : "PASS 1.3");
      });
  Teacher teacher{.name = "fake-teacher", .kind = "command", .provider = provider};
  RepairOptions options{.max_turns = 4, .concurrency = 2};
  auto summary = repair_rows(*folder, rows_, suite_, teacher, testing::fake_evaluate, options);
  ASSERT_TRUE(summary) << summary.error().message;
  ASSERT_EQ(summary->rows.size(), 4u);
  for (const auto& row : summary->rows) {
    EXPECT_EQ(row.status, RepairStatus::kRepaired) << row.mined_id;
    EXPECT_EQ(row.turns, 2);
    EXPECT_EQ(row.chosen_turn, 2);
    EXPECT_EQ(row.code, "PASS 1.3\n");
  }
  EXPECT_EQ(provider->calls().size(), 8u);
  auto calls = provider->calls();
  EXPECT_EQ(calls[0].messages, 2u);  // system + the repair request

  auto again = repair_rows(*folder, rows_, suite_, teacher, testing::fake_evaluate, options);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->resumed, 4);
  EXPECT_EQ(provider->calls().size(), 8u) << "finished repairs were asked again";
}

TEST_F(RepairTest, RequestCarriesTheFailureAndTheInstruction) {
  std::string request = repair_request(rows_[0]);
  EXPECT_TRUE(request.starts_with(rows_[0].task_prompt));
  EXPECT_NE(request.find(rows_[0].code), std::string::npos);
  EXPECT_NE(request.find(rows_[0].feedback), std::string::npos);
  EXPECT_NE(request.find("minimal change"), std::string::npos);
}

TEST_F(RepairTest, UnjudgedWhenOnlyStaticStagesRan) {
  agent::Trajectory trajectory;
  trajectory.info.id = "t";
  trajectory.messages = {{.role = "assistant", .content = "```cuda\nk\n```", .turn = 1}};
  trajectory.turns = {{.turn = 1, .evaluation = testing::not_run()}};
  RepairRow row = repair_row_of(rows_[0], {.name = "x"}, trajectory, {});
  EXPECT_EQ(row.status, RepairStatus::kUnjudged);
  EXPECT_EQ(row.code, "k\n");
  trajectory.turns = {{.turn = 1, .evaluation = testing::instructions_not_executed()}};
  EXPECT_EQ(repair_row_of(rows_[0], {.name = "x"}, trajectory, {}).status,
            RepairStatus::kNotRepaired);
  EXPECT_EQ(repair_row_of(rows_[0], {.name = "x"}, trajectory, {.strict = false}).status,
            RepairStatus::kRepaired);
}

// A teacher that cannot answer (a command that does not exist, an endpoint that refuses) leaves
// the row not repaired with the teacher's error as the reason, said and recorded.
TEST_F(RepairTest, ATeacherThatFailsGivesTheReason) {
  auto folder = FixitFolder::open(work_.path() / "fixit");
  ASSERT_TRUE(folder);
  auto provider = std::make_shared<testing::FakeProvider>(
      [](const model::Conversation&, const model::CallContext&) -> model::CallResult {
        return model::ProviderError{.message = "/no/such/teacher: No such file or directory"};
      });
  Teacher teacher{.name = "missing", .kind = "command", .provider = provider};
  std::vector<std::string> said;
  auto summary = repair_rows(*folder, {rows_[0]}, suite_, teacher, testing::fake_evaluate,
                             {.max_turns = 2, .concurrency = 1},
                             [&](std::string_view line) { said.emplace_back(line); });
  ASSERT_TRUE(summary) << summary.error().message;
  ASSERT_EQ(summary->rows.size(), 1u);
  const auto& row = summary->rows[0];
  EXPECT_EQ(row.status, RepairStatus::kNotRepaired);
  EXPECT_NE(row.reason.find("/no/such/teacher: No such file or directory"), std::string::npos)
      << row.reason;
  EXPECT_TRUE(std::any_of(said.begin(), said.end(), [&](const std::string& line) {
    return line.find(rows_[0].id + ": not repaired: ") != std::string::npos &&
           line.find("No such file or directory") != std::string::npos;
  }));
  auto back = repair_row_from_json(to_json(row));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->reason, row.reason);
}

TEST_F(RepairTest, TurnsThatMissTheBarAreTheReason) {
  agent::Trajectory trajectory;
  trajectory.info.id = "t";
  trajectory.turns = {{.turn = 1, .evaluation = testing::instructions_not_executed()}};
  RepairRow row = repair_row_of(rows_[0], {.name = "x"}, trajectory, {});
  EXPECT_EQ(row.status, RepairStatus::kNotRepaired);
  EXPECT_NE(row.reason.find("no turn of 1 met the bar"), std::string::npos) << row.reason;
  EXPECT_NE(row.reason.find("INSTRUCTIONS_NOT_EXECUTED"), std::string::npos) << row.reason;
}

}  // namespace
}  // namespace ptxbench::fixit
