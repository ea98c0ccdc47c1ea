// Exported rows: the agreed format (docs/fixit.md), loss on the last message only, held-out
// tasks never in train, unverified rows only when asked for, explanations kept per explainer
// and length, KernelGen rows once per kernel with the feedback that led to a later-turn pass.
// The export folder of a fixed set is compared with data/sample_export/, which the Python test
// loads with `datasets` (PTXBENCH_UPDATE_GOLDEN=1 rewrites it).
#include "ptxbench/fixit/export_rows.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <cstdlib>

#include "../agent/sample_evaluations.hpp"
#include "fixit_samples.hpp"
#include "ptxbench/agent/run_directory.hpp"
#include "ptxbench/fixit/dataset_card.hpp"
#include "ptxbench/fixit/explanation_variant.hpp"
#include "ptxbench/fixit/export_files.hpp"
#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/fixit/verify.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::fixit {
namespace {

using eval::Verdict;
using Json = nlohmann::json;
namespace fs = std::filesystem;

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
    EXPECT_EQ(m.size(), 4u);
    EXPECT_EQ(m["role"], roles[i]);
    EXPECT_EQ(m["loss"], i == 4);
    EXPECT_TRUE(m["reasoning"].is_string());  // "" where none: one column type in every row
  }
  EXPECT_EQ(row["messages"][2]["content"], s_.mined[0].reply);
  EXPECT_EQ(row["messages"][3]["content"], s_.mined[0].feedback);
  // The explanation is the reply's reasoning (the trainer puts it in the thinking channel).
  EXPECT_EQ(row["messages"][4]["reasoning"], "I found the bug.");
  EXPECT_TRUE(row["messages"][4]["content"].get<std::string>().starts_with("```cuda\nfixed 0"));
  const Json& p = row["provenance"];
  for (const char* key : {"run", "trajectory", "turn", "task", "arch", "context", "verdict",
                          "teacher", "evaluation_source_hash"})
    EXPECT_TRUE(p.contains(key)) << key;
  EXPECT_EQ(p["trajectory"], s_.mined[0].source.trajectory);
  EXPECT_EQ(p["teacher"], "teacher-x");
  EXPECT_EQ(p["gpu"], "NVIDIA H200");
}

TEST_F(ExportTest, MatchesTheFolderThePythonTestLoads) {
  ExportedSet set = run(true);
  util::TempDir dir;
  ExportFiles files = write_export(dir.path(), set);
  std::vector<SftRow> none;
  util::write_file_atomic(dir.path() / "README.md",
                          render_dataset_card({.fixit = &set.fixit,
                                               .kernelgen = &none,
                                               .left_out = set.left_out,
                                               .content_hash = files.content_hash,
                                               .data_files = files.data_files}));
  const fs::path golden = fs::path(PTXBENCH_TEST_DATA_DIR) / "sample_export";
  std::vector<std::string> names = {"README.md"};
  for (const char* split : kSplits)
    for (const char* kind : kKinds) names.push_back(export_file(split, kind));
  for (const auto& name : names) {
    auto text = util::read_file(dir.path() / name);
    ASSERT_TRUE(text) << text.error().message;
    if (std::getenv("PTXBENCH_UPDATE_GOLDEN") != nullptr) {
      fs::create_directories((golden / name).parent_path());
      util::write_file_atomic(golden / name, *text);
    }
    auto expected = util::read_file(golden / name);
    ASSERT_TRUE(expected) << expected.error().message;
    EXPECT_EQ(*text, *expected) << name << ": rerun with PTXBENCH_UPDATE_GOLDEN=1 after a "
                                << "deliberate change";
  }
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
// the card's YAML header stays a YAML mapping of ptxbench's own keys.
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
  ASSERT_TRUE(header.IsMap());
  EXPECT_EQ(header["pretty_name"].as<std::string>(), "ptxbench Fixit dataset");
  EXPECT_FALSE(header["license"]);
}

TEST_F(ExportTest, FolderBySplitWithCardThatDeclaresThem) {
  ExportedSet set = run(false);  // one train row, one held-out row
  util::TempDir dir;
  ExportFiles files = write_export(dir.path(), set);
  ASSERT_EQ(files.data_files.size(), 2u);
  EXPECT_EQ(files.data_files["train"], std::vector<std::string>{"train/fixit.jsonl"});
  EXPECT_EQ(files.data_files["heldout"], std::vector<std::string>{"heldout/fixit.jsonl"});
  auto heldout = read_jsonl(dir.path() / "heldout/fixit.jsonl");
  ASSERT_TRUE(heldout);
  ASSERT_EQ(heldout->size(), 1u);
  EXPECT_EQ((*heldout)[0]["split"], "heldout");
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "train/kernelgen.jsonl"));  // empty, written
  std::vector<SftRow> none;
  std::string card = render_dataset_card({.fixit = &set.fixit,
                                          .kernelgen = &none,
                                          .content_hash = files.content_hash,
                                          .data_files = files.data_files});
  EXPECT_TRUE(card.starts_with("---\n")) << card;
  EXPECT_NE(card.find("configs:\n- config_name: default\n  data_files:\n  - split: heldout\n"
                      "    path:\n    - heldout/fixit.jsonl\n  - split: train\n"),
            std::string::npos)
      << card;
  EXPECT_NE(card.find("dataset_info:\n  features:\n  - name: id\n"), std::string::npos);
  EXPECT_NE(card.find("    - name: reasoning\n      dtype: string\n"), std::string::npos);
}

TEST(ExplanationVariants, KeptSideBySideAndChosenByLengthAndExplainer) {
  auto row = [](std::string explainer, std::string length, std::string text) {
    return ExplainedRow{.mined_id = "m-1",
                        .explainer = std::move(explainer),
                        .length_bin = std::move(length),
                        .reasoning = std::move(text),
                        .attempts = 1};
  };
  std::vector<ExplainedRow> rows = merge_explained({}, {row("t/a", "short", "s")});
  rows = merge_explained(rows, {row("t/a", "long", "l")});
  rows = merge_explained(rows, {row("t/a", "short", "s2")});  // the same variant again: replaced
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].reasoning, "s2");
  EXPECT_EQ(rows[1].reasoning, "l");
  auto both = choose_variant(rows, {});
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().message.find("--length"), std::string::npos) << both.error().message;
  auto longer = choose_variant(rows, {.length_bin = "long"});
  ASSERT_TRUE(longer && *longer);
  EXPECT_EQ((*longer)->key(), "long-t_a");
  EXPECT_EQ(rows_of_variant(rows, **longer).size(), 1u);
  auto none = choose_variant(rows, {.explainer = "other"});
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
}

// A run with one trajectory that passes on turn 2 after feedback, and a second sample that
// passes on turn 1 with the same kernel.
TEST(KernelgenRows, KeepTheFeedbackBeforeAPassAndDropDuplicateKernels) {
  util::TempDir work;
  fs::path run = work.path() / "run";
  auto dir = agent::RunDirectory::open(run);
  ASSERT_TRUE(dir);
  dir->write_run_json(Json::object());
  auto passed_with = [](std::string hash) {
    eval::Evaluation e = testing::passed(1.3);
    e.source_hash = std::move(hash);
    return e;
  };
  auto trajectory = [&](int sample, std::vector<eval::Evaluation> evaluations) {
    agent::Trajectory t;
    t.info.id = fmt::format("m__gemm_n7168_k5120__hopper__none__s{}", sample);
    t.info.model = "m";
    t.info.task = "gemm_n7168_k5120";
    t.info.status = agent::TrajectoryStatus::kFinished;
    t.messages = {{.role = "system", .content = "SYSTEM"}, {.role = "user", .content = "TASK"}};
    for (int turn = 1; turn <= static_cast<int>(evaluations.size()); ++turn) {
      t.messages.push_back({.role = "assistant",
                            .content = fmt::format("REPLY {}", turn),
                            .reasoning_content = fmt::format("THOUGHT {}", turn),
                            .turn = turn});
      t.messages.push_back(
          {.role = "user", .content = fmt::format("FEEDBACK {}", turn), .turn = turn});
      t.turns.push_back({.turn = turn, .evaluation = evaluations[turn - 1]});
    }
    return t;
  };
  dir->save_trajectory(trajectory(0, {testing::compile_error(), passed_with("h-same")}));
  dir->save_trajectory(trajectory(1, {passed_with("h-same")}));
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  auto set = export_kernelgen_rows({run}, *suite, {});
  ASSERT_TRUE(set) << set.error().message;
  ASSERT_EQ(set->rows.size(), 1u);
  ASSERT_EQ(set->left_out.size(), 1u);
  EXPECT_NE(set->left_out[0].find("the same kernel source as kernelgen-m__"), std::string::npos)
      << set->left_out[0];
  const SftRow& row = set->rows[0];
  EXPECT_EQ(row.id, "kernelgen-m__gemm_n7168_k5120__hopper__none__s0-t2");
  std::vector<std::string> contents;
  for (const auto& m : row.messages) contents.push_back(m.role + ":" + m.content);
  EXPECT_EQ(contents, (std::vector<std::string>{"system:SYSTEM", "user:TASK", "assistant:REPLY 1",
                                                "user:FEEDBACK 1", "assistant:REPLY 2"}));
  EXPECT_EQ(row.messages.back().reasoning, "THOUGHT 2");
  EXPECT_TRUE(row.messages.back().loss);
  EXPECT_FALSE(row.messages[2].loss);
  EXPECT_EQ(row.messages[2].reasoning, "");  // earlier replies as sent back: content only
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
