// Repairs keyed by (mined row, teacher): a second teacher's repairs sit beside the first's, and
// explain and export take one teacher's rows, named or the only one; folders written before the
// teacher was in the key read as they did.
#include "ptxbench/fixit/repair_teachers.hpp"

#include <gtest/gtest.h>

#include "../agent/sample_evaluations.hpp"
#include "fixit_samples.hpp"
#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/fixit/stages.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::fixit {
namespace {

namespace fs = std::filesystem;

RepairRow repair(const std::string& id, const std::string& teacher, const std::string& code) {
  return {.mined_id = id,
          .teacher = teacher,
          .trajectory = teacher + "__" + id,
          .status = RepairStatus::kRepaired,
          .turns = 1,
          .chosen_turn = 1,
          .reply = "```cuda\n" + code + "\n```\n",
          .code = code,
          .evaluation = testing::passed(1.5)};
}

TEST(RepairTeachers, MergeKeepsEachTeachersRepairOfARow) {
  auto rows = merge_repairs({}, {repair("m-1", "a", "A1"), repair("m-2", "a", "A2")});
  rows = merge_repairs(rows, {repair("m-1", "b", "B1")});
  ASSERT_EQ(rows.size(), 3u);
  rows = merge_repairs(rows, {repair("m-1", "a", "A1 again")});  // the same key: replaced
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].code, "A1 again");
  EXPECT_EQ(rows[2].teacher, "b");
  EXPECT_EQ(teachers_of(rows), (std::set<std::string>{"a", "b"}));
}

TEST(RepairTeachers, OneTeacherIsChosenByNameOrBeingTheOnlyOne) {
  std::vector<RepairRow> one = {repair("m-1", "a", "A")};
  std::vector<RepairRow> two = {repair("m-1", "a", "A"), repair("m-1", "b", "B")};
  EXPECT_EQ(choose_teacher({}, "").value(), "");
  EXPECT_EQ(choose_teacher(one, "").value(), "a");
  EXPECT_EQ(choose_teacher(two, "b").value(), "b");
  auto several = choose_teacher(two, "");
  ASSERT_FALSE(several);
  EXPECT_NE(several.error().message.find("2 teachers: a, b; pick one with --teacher-name"),
            std::string::npos)
      << several.error().message;
  auto unknown = choose_teacher(two, "c");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("no repairs of teacher 'c'"), std::string::npos);
}

TEST(RepairTeachers, RowsWithoutATeacherBelongToTheChosenOne) {
  std::vector<VerifiedRow> rows = {{.mined_id = "m-1", .teacher = "a"},
                                   {.mined_id = "m-1", .teacher = "b"},
                                   {.mined_id = "m-2"}};
  auto of_b = rows_of_teacher(rows, "b");
  ASSERT_EQ(of_b.size(), 2u);
  EXPECT_EQ(of_b[0].teacher, "b");
  EXPECT_EQ(of_b[1].mined_id, "m-2");
  EXPECT_EQ(rows_of_teacher(rows, "").size(), 3u);
}

TEST(RepairTeachers, ExportKeyNamesTheTeacherOnlyWhenSeveralRepaired) {
  ExplanationVariant variant{.explainer = "ex plainer", .length_bin = "short"};
  EXPECT_EQ(export_key(variant, "a", false), "short-ex_plainer");
  EXPECT_EQ(export_key(variant, "team/b", true), "short-ex_plainer--team_b");
  EXPECT_EQ(export_key(std::nullopt, "a", true), std::string(kUnexplainedKey) + "--a");
}

TEST(RepairTeachers, RowsOfOlderVersionsReadWithoutATeacher) {
  VerifiedRow old{.mined_id = "m-1", .teacher = "dropped", .status = VerifyStatus::kVerified};
  nlohmann::json old_json = to_json(old);
  old_json.erase("teacher");
  auto verified = verified_row_from_json(old_json);
  ASSERT_TRUE(verified) << verified.error().message;
  EXPECT_EQ(verified->teacher, "");
  auto explained = explained_row_from_json({{"mined_id", "m-1"},
                                            {"explainer", "x"},
                                            {"length_bin", "short"},
                                            {"reasoning", "r"},
                                            {"attempts", 1}});
  ASSERT_TRUE(explained) << explained.error().message;
  EXPECT_EQ(explained->teacher, "");
  ExplainedRow written{.mined_id = "m-1", .teacher = "b", .explainer = "x", .length_bin = "short"};
  EXPECT_EQ(explained_row_from_json(to_json(written)).value().teacher, "b");
}

// A folder where teachers a and b both repaired (and had explained) the same row: the export
// asks which, and names the teacher in its folder.
TEST(RepairTeachers, ExportOfAFolderWithTwoTeachersTakesTheNamedOnesRows) {
  util::TempDir dir;
  auto folder = FixitFolder::open(dir.path() / "f");
  ASSERT_TRUE(folder) << folder.error().message;
  MinedRow mined = testing::mined_row("gemm_n7168_k5120", eval::Verdict::kCompileError, 1, 1);
  folder->write_mined({mined});
  folder->write_repairs({repair(mined.id, "a", "// by a"), repair(mined.id, "b", "// by b")});
  std::vector<VerifiedRow> verified;
  std::vector<ExplainedRow> explained;
  for (const char* teacher : {"a", "b"}) {
    verified.push_back({.mined_id = mined.id,
                        .teacher = teacher,
                        .status = VerifyStatus::kVerified,
                        .evaluation = testing::passed(1.5)});
    explained.push_back({.mined_id = mined.id,
                         .teacher = teacher,
                         .explainer = "x",
                         .length_bin = "short",
                         .reasoning = std::string("reasoning of ") + teacher,
                         .attempts = 1});
  }
  folder->write_verified(verified);
  folder->write_explained(explained);
  auto env = load_environment({}, kFixitDefaults);
  ASSERT_TRUE(env) << env.error().message;

  auto unnamed = fixit_export(*folder, *env, "", "", false, {});
  ASSERT_FALSE(unnamed);
  EXPECT_NE(unnamed.error().message.find("--teacher-name"), std::string::npos);

  auto of_b = fixit_export(*folder, *env, "", "b", false, {});
  ASSERT_TRUE(of_b) << of_b.error().message;
  EXPECT_EQ(of_b->dir, folder->export_dir("all") / "short-x--b");
  EXPECT_EQ(of_b->fixit_rows, 1u);
  auto rows = read_jsonl(of_b->dir / "train" / "fixit.jsonl");
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->at(0).at("provenance").at("teacher"), "b");
  EXPECT_NE(rows->at(0).dump().find("// by b"), std::string::npos);
  EXPECT_NE(rows->at(0).dump().find("reasoning of b"), std::string::npos);
}

}  // namespace
}  // namespace ptxbench::fixit
