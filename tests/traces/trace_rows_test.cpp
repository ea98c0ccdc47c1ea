// Trace rows from real trajectory files: one per completed turn, the extracted code, the
// executed families, and the exploit flag from a review list.
#include "ptxbench/traces/trace_rows.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "ptxbench/traces/dataset_card.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::traces {
namespace {

agent::Trajectory make_trajectory() {
  agent::Trajectory t;
  t.info = {.id = "m__gemm_n7168_k5120__hopper__isa__s0",
            .model = "m",
            .provider = "replay",
            .task = "gemm_n7168_k5120",
            .context_level = prompt::ContextLevel::kIsa};
  t.messages = {{.role = "system", .content = "S"},
                {.role = "user", .content = "T"},
                {.role = "assistant", .content = "no code", .turn = 1},
                {.role = "user", .content = "feedback 1", .turn = 1},
                {.role = "assistant", .content = "```cuda\nint k;\n```", .turn = 2},
                {.role = "user", .content = "feedback 2", .turn = 2}};
  agent::TurnRecord first{.turn = 1};
  first.evaluation.verdict = eval::Verdict::kNoCode;
  agent::TurnRecord second{.turn = 2, .code_hash = "abc123"};
  second.evaluation.verdict = eval::Verdict::kPassed;
  second.evaluation.families = {{.family = "GMMA", .requested = true, .executed_count = 4096},
                                {.family = "TMA", .requested = true}};
  second.evaluation.workloads = {{.workload = "M8192", .headline = true, .speedup = 1.2}};
  t.turns = {first, second};
  return t;
}

TEST(TraceRows, OneRowPerTurnWithItsCodeAndVerdict) {
  const auto rows = rows_of(make_trajectory(), "run-a", {});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].verdict, "NO_CODE");
  EXPECT_FALSE(rows[0].code.has_value());
  EXPECT_EQ(rows[1].code, "int k;\n");
  EXPECT_EQ(rows[1].context, "isa");
  EXPECT_TRUE(rows[1].passed);
  EXPECT_EQ(rows[1].executed_families, (std::map<std::string, std::int64_t>{{"GMMA", 4096}}));
  EXPECT_EQ(rows[1].requested_families, (std::vector<std::string>{"GMMA", "TMA"}));
  EXPECT_DOUBLE_EQ(*rows[1].speedup, 1.2);
}

// An FP8 GEMM turn exports its own requested and executed families (QGMMA, not GMMA), so a
// dataset can be filtered by the FP8 tensor-core instruction that ran.
TEST(TraceRows, Fp8TurnsExportTheirFp8Family) {
  agent::Trajectory t = make_trajectory();
  t.info.task = "gemm_fp8_n7168_k5120";
  t.turns[1].evaluation.families = {{.family = "QGMMA", .requested = true, .executed_count = 2048},
                                    {.family = "TMA", .requested = true},
                                    {.family = "GMMA", .requested = false, .executed_count = 0}};
  const auto rows = rows_of(t, "run-a", {});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].task, "gemm_fp8_n7168_k5120");
  EXPECT_EQ(rows[1].requested_families, (std::vector<std::string>{"QGMMA", "TMA"}));
  EXPECT_EQ(rows[1].executed_families,
            (std::map<std::string, std::int64_t>{{"GMMA", 0}, {"QGMMA", 2048}}));
  EXPECT_EQ(to_json(rows[1])["executed_families"][1]["family"], "QGMMA");
}

// The rows of a trajectory rebuild the conversation the model had: opening prompts, then each
// turn's reply (with its reasoning) and the feedback that followed it.
TEST(TraceRows, RebuildTheConversation) {
  agent::Trajectory t = make_trajectory();
  t.messages[4].reasoning_content = "thinking";
  const auto rows = rows_of(t, "run-a", {});
  std::vector<std::string> rebuilt = {rows[0].system_prompt, rows[0].task_prompt};
  for (const auto& row : rows) {
    rebuilt.push_back(row.reply);
    if (!row.feedback.empty()) rebuilt.push_back(row.feedback);
  }
  std::vector<std::string> original;
  for (const auto& message : t.messages) original.push_back(message.content);
  EXPECT_EQ(rebuilt, original);
  EXPECT_EQ(rows[0].reasoning, "");
  EXPECT_EQ(rows[1].reasoning, "thinking");
}

// The card declares a type for every column, so an export whose speedups
// are all null does not infer a null column.
TEST(TraceRows, TheCardDeclaresEveryColumnsType) {
  const auto json = to_json(rows_of(make_trajectory(), "run-a", {})[0]);
  const std::string features = trace_features_yaml();
  std::size_t declared = 0;  // top-level columns only: nested keys are indented further
  for (std::size_t at = 0; (at = features.find("\n  - name: ", at)) != std::string::npos; ++at)
    ++declared;
  for (const auto& [key, value] : json.items())
    EXPECT_NE(features.find("\n  - name: " + key + "\n"), std::string::npos) << key << "\n"
                                                                             << features;
  EXPECT_EQ(declared, json.size()) << features;
  EXPECT_NE(features.find("  - name: speedup\n    dtype: float64\n"), std::string::npos);
  const auto card = render_dataset_card({.name = "t", .runs = {"run-a"}}, {});
  EXPECT_NE(card.find("dataset_info:\n  features:\n"), std::string::npos) << card;
}

TEST(TraceRows, EveryRowHasTheSameColumns) {
  const auto rows = rows_of(make_trajectory(), "run-a", {});
  auto keys = [](const nlohmann::json& j) {
    std::vector<std::string> out;
    for (const auto& [k, v] : j.items()) out.push_back(k);
    return out;
  };
  EXPECT_EQ(keys(to_json(rows[0])), keys(to_json(rows[1])));
  EXPECT_TRUE(to_json(rows[0])["speedup"].is_null());
  EXPECT_EQ(to_json(rows[1])["executed_families"][0]["family"], "GMMA");
}

TEST(TraceRows, TheReviewListFlagsExploitsByHashOrTurn) {
  util::TempDir dir;
  util::write_file_atomic(
      dir.path() / "exploits",
      "# reviewed 2026-12-01\nabc123\nm__gemm_n7168_k5120__hopper__isa__s0#1\n");
  auto list = load_exploit_list(dir.path() / "exploits");
  ASSERT_TRUE(list.has_value());
  const auto rows = rows_of(make_trajectory(), "run-a", *list);
  EXPECT_TRUE(rows[0].exploit);
  EXPECT_TRUE(rows[1].exploit);
  EXPECT_FALSE(rows_of(make_trajectory(), "run-a", {})[1].exploit);
}

// The card's YAML header, parsed as the Hub reads it.
YAML::Node front_matter(const std::string& card) {
  EXPECT_EQ(card.rfind("---\n", 0), 0u);
  const auto end = card.find("\n---\n", 4);
  EXPECT_NE(end, std::string::npos);
  return YAML::Load(card.substr(4, end - 4));
}

TEST(DatasetCard, NamesTheDataFileAndCountsVerdicts) {
  auto rows = rows_of(make_trajectory(), "run-a", {});
  for (auto& row : rows) row.split = "train";
  const auto card = render_dataset_card({.name = "t", .runs = {"run-a"}}, rows);
  EXPECT_EQ(front_matter(card)["configs"][0]["data_files"][0]["path"].as<std::string>(),
            "train/traces.jsonl");
  EXPECT_NE(card.find("| NO_CODE | 1 |"), std::string::npos);
  EXPECT_NE(card.find("not reviewed"), std::string::npos);
}

// Held-out rows never load as train: each split has its own data file, and the card's
// config maps each split to its file alone.
TEST(DatasetCard, HeldOutRowsHaveTheirOwnSplit) {
  auto train = rows_of(make_trajectory(), "run-a", {});
  for (auto& row : train) row.split = "train";
  auto heldout = rows_of(make_trajectory(), "run-b", {});
  for (auto& row : heldout) row.split = "heldout";
  train.insert(train.end(), heldout.begin(), heldout.end());
  const auto card = render_dataset_card({.name = "t", .runs = {"run-a", "run-b"}}, train);
  const auto files = front_matter(card)["configs"][0]["data_files"];
  ASSERT_EQ(files.size(), 2u) << card;
  std::map<std::string, std::string> path_of;
  for (const auto& file : files)
    path_of[file["split"].as<std::string>()] = file["path"].as<std::string>();
  EXPECT_EQ(path_of["train"], "train/traces.jsonl");
  EXPECT_EQ(path_of["heldout"], "heldout/traces.jsonl");
  EXPECT_NE(card.find("`heldout` 2, `train` 2"), std::string::npos) << card;
}

TEST(DatasetCard, ANameOrRunWithNewlinesStaysAValueAndInjectsNothing) {
  const auto rows = rows_of(make_trajectory(), "run-a", {});
  const std::string name = "t\nlicense: evil\n---\n# injected";
  const auto card = render_dataset_card({.name = name, .runs = {"run\n## injected run"}}, rows);
  const auto header = front_matter(card);
  ASSERT_TRUE(header.IsMap());
  EXPECT_EQ(header["pretty_name"].as<std::string>(), name);
  EXPECT_FALSE(header["license"].IsDefined());
  EXPECT_EQ(header.size(), 4u);  // pretty_name, tags, configs, dataset_info
  EXPECT_TRUE(header["dataset_info"]["features"].IsSequence());
  EXPECT_EQ(header["configs"][0]["data_files"][0]["path"].as<std::string>(), "train/traces.jsonl");
  EXPECT_EQ(card.find("\n# injected"), std::string::npos) << card;
  EXPECT_EQ(card.find("\n## injected run"), std::string::npos) << card;
}

}  // namespace
}  // namespace ptxbench::traces
