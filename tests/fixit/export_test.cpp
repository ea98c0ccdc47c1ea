// Exported rows: the agreed format (docs/fixit.md), loss on the last message only, held-out
// tasks never in train, unverified rows only when asked for. The rows of a fixed set are
// compared with data/sample_export.jsonl, which the Python test loads with `datasets`
// (PTXBENCH_UPDATE_GOLDEN=1 rewrites it).
#include "ptxbench/fixit/export_rows.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>

#include "../agent/sample_evaluations.hpp"
#include "fixit_samples.hpp"
#include "ptxbench/fixit/dataset_card.hpp"
#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/fixit/verify.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::fixit {
namespace {

using eval::Verdict;
using Json = nlohmann::json;

struct Sample {
  std::vector<MinedRow> mined;
  std::vector<RepairRow> repairs;
  std::vector<VerifiedRow> verified;
  std::vector<ExplainedRow> explained;
};

Sample sample() {
  Sample s;
  s.mined = {testing::mined_row("gemm_n7168_k5120", Verdict::kCompileError, 1, 1),
             testing::mined_row("gemm_n7168_k5120", Verdict::kTimeout, 2, 2),
             testing::mined_row("gemm_n7168_k5120", Verdict::kIncorrectNumerical, 1, 3),
             testing::mined_row("gemm_n256_k7168", Verdict::kCompileError, 1, 4)};
  eval::Evaluation passed = testing::passed(1.1);
  passed.toolchain["gpu"] = "NVIDIA H200";
  std::vector<eval::Evaluation> evaluations{passed, testing::not_run(), testing::incorrect(),
                                            passed};
  for (std::size_t i = 0; i < s.mined.size(); ++i) {
    const auto& row = s.mined[i];
    s.repairs.push_back({.mined_id = row.id,
                         .teacher = "teacher-x",
                         .trajectory = "teacher-x__" + row.task,
                         .status = RepairStatus::kRepaired,
                         .turns = 1,
                         .chosen_turn = 1,
                         .reply = "```cuda\nfixed\n```",
                         .code = "fixed " + std::to_string(i),
                         .evaluation = evaluations[i]});
    s.verified.push_back(judge(row.id, evaluations[i]));
    s.explained.push_back({.mined_id = row.id,
                           .explainer = "explainer-y",
                           .length_bin = "medium",
                           .reasoning = "I found the bug.",
                           .attempts = 1});
  }
  return s;
}

class ExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto suite = task::load_suite(task::default_tasks_dir());
    ASSERT_TRUE(suite);
    suite_ = std::move(*suite);
  }
  ExportedSet run(bool include_unverified) {
    return export_fixit_rows({.mined = &s_.mined,
                              .repairs = &s_.repairs,
                              .verified = &s_.verified,
                              .explained = &s_.explained},
                             suite_, {.include_unverified = include_unverified});
  }
  Sample s_ = sample();
  std::vector<task::Task> suite_;
};

TEST_F(ExportTest, VerifiedOnlyByDefault) {
  ExportedSet set = run(false);
  ASSERT_EQ(set.fixit.size(), 2u);
  EXPECT_EQ(set.left_out.size(), 2u);  // the unverified and the rejected one
  for (const auto& row : set.fixit) EXPECT_TRUE(row.verified);
}

TEST_F(ExportTest, UnverifiedWhenAskedForAndMarked) {
  ExportedSet set = run(true);
  ASSERT_EQ(set.fixit.size(), 3u);
  EXPECT_FALSE(set.fixit[1].verified);
  EXPECT_EQ(set.fixit[1].provenance.verification, "unverified");
  EXPECT_EQ(set.fixit[1].provenance.verdict, "TIMEOUT");
}

TEST_F(ExportTest, HeldOutTasksNeverInTrain) {
  ExportedSet set = run(false);
  EXPECT_EQ(set.fixit[0].split, "train");
  EXPECT_EQ(set.fixit[1].provenance.task, "gemm_n256_k7168");
  EXPECT_EQ(set.fixit[1].split, "heldout");
  EXPECT_EQ(split_of(suite_, "no_such_task"), "heldout");
}

TEST_F(ExportTest, RowFormatAsAgreed) {
  ExportedSet set = run(false);
  Json row = to_json(set.fixit[0]);
  for (const char* key : {"id", "kind", "split", "verified", "messages", "provenance"})
    EXPECT_TRUE(row.contains(key)) << key;
  EXPECT_EQ(row["kind"], "fixit");
  ASSERT_EQ(row["messages"].size(), 5u);
  std::vector<std::string> roles{"system", "user", "assistant", "user", "assistant"};
  for (std::size_t i = 0; i < 5; ++i) {
    const Json& m = row["messages"][i];
    EXPECT_EQ(m.size(), 3u);
    EXPECT_EQ(m["role"], roles[i]);
    EXPECT_EQ(m["loss"], i == 4);
  }
  EXPECT_EQ(row["messages"][2]["content"], s_.mined[0].reply);
  EXPECT_EQ(row["messages"][3]["content"], s_.mined[0].feedback);
  EXPECT_TRUE(row["messages"][4]["content"].get<std::string>().starts_with(
      "I found the bug.\n\n```cuda\nfixed 0"));
  const Json& p = row["provenance"];
  for (const char* key : {"run", "trajectory", "turn", "task", "arch", "context", "verdict",
                          "teacher", "evaluation_source_hash"})
    EXPECT_TRUE(p.contains(key)) << key;
  EXPECT_EQ(p["trajectory"], s_.mined[0].source.trajectory);
  EXPECT_EQ(p["teacher"], "teacher-x");
  EXPECT_EQ(p["gpu"], "NVIDIA H200");
}

TEST_F(ExportTest, MatchesTheFileThePythonTestLoads) {
  std::vector<Json> lines;
  for (const auto& row : run(true).fixit) lines.push_back(to_json(row));
  std::string text = to_jsonl(lines);
  auto golden_path = std::filesystem::path(PTXBENCH_TEST_DATA_DIR) / "sample_export.jsonl";
  if (std::getenv("PTXBENCH_UPDATE_GOLDEN") != nullptr) util::write_file_atomic(golden_path, text);
  auto golden = util::read_file(golden_path);
  ASSERT_TRUE(golden) << golden.error().message;
  EXPECT_EQ(text, *golden) << "rerun with PTXBENCH_UPDATE_GOLDEN=1 after a deliberate change";
}

TEST_F(ExportTest, CardCountsAndHash) {
  ExportedSet set = run(true);
  std::vector<SftRow> none;
  std::string card =
      render_dataset_card({.fixit = &set.fixit, .kernelgen = &none, .content_hash = "abc"});
  EXPECT_NE(card.find("| gemm_n7168_k5120 | COMPILE_ERROR | hopper | train | 1 | 0 |"),
            std::string::npos)
      << card;
  EXPECT_NE(card.find("| gemm_n7168_k5120 | TIMEOUT | hopper | train | 0 | 1 |"), std::string::npos)
      << card;
  EXPECT_NE(card.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(card.find("`abc`"), std::string::npos);
  EXPECT_NE(card.find("teacher-x"), std::string::npos);
  EXPECT_EQ(percentiles({5, 1, 3, 2, 4}).p50, 3u);
  EXPECT_EQ(percentiles({5, 1, 3, 2, 4}).max, 5u);
}

// Names from configuration files (a teacher's, an explainer's) stay in their line and cell, and
// the card's YAML header names both data files, written by yaml-cpp's emitter.
TEST_F(ExportTest, TheCardQuotesWhatItShows) {
  ExportedSet set = run(true);
  for (auto& row : set.fixit) {
    row.provenance.teacher = "t|x\n## injected teacher";
    row.provenance.gpu = "H200\n## injected gpu";
  }
  std::vector<SftRow> none;
  const std::string card =
      render_dataset_card({.fixit = &set.fixit, .kernelgen = &none, .content_hash = "abc"});
  EXPECT_EQ(card.find("\n## injected"), std::string::npos) << card;
  EXPECT_NE(card.find("t\\|x\\n## injected teacher"), std::string::npos) << card;
  ASSERT_EQ(card.rfind("---\n", 0), 0u);
  const auto header = YAML::Load(card.substr(4, card.find("\n---\n", 4) - 4));
  EXPECT_EQ(header["configs"][0]["config_name"].as<std::string>(), "fixit");
  EXPECT_EQ(header["configs"][0]["data_files"][0]["path"].as<std::string>(), "fixit.jsonl");
  EXPECT_EQ(header["configs"][1]["data_files"][0]["path"].as<std::string>(), "kernelgen.jsonl");
}

TEST(Verify, OnlyPassedWithMeasuredFamiliesIsVerified) {
  EXPECT_EQ(judge("a", testing::passed(1.0)).status, VerifyStatus::kVerified);
  EXPECT_EQ(judge("a", testing::not_run()).status, VerifyStatus::kUnverified);
  EXPECT_EQ(judge("a", testing::instructions_not_executed()).status, VerifyStatus::kRejected);
  eval::Evaluation edited = testing::passed(1.0);
  edited.families[1].executed_count.reset();
  EXPECT_EQ(judge("a", edited).status, VerifyStatus::kRejected);
}

}  // namespace
}  // namespace ptxbench::fixit
