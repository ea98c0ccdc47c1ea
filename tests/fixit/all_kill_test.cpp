// `ptxbench fixit all --config FILE`, the whole chain (mine, balance with two recipes, repair,
// verify, explain, export) with a `command` teacher and explainer and the real evaluator's static
// stages (gpu: false, so every repair is unverified and exported as such). One run goes straight
// through; another is killed with SIGKILL during the repairs, rerun, killed again during the
// explanations, and rerun: its final exports are byte for byte those of the straight run, and
// the repair finished before the first kill is not asked for again.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <sstream>

#include "../agent/sample_evaluations.hpp"
#include "ptxbench/agent/run_directory.hpp"
#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::fixit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

agent::Trajectory trajectory_of(const std::string& task, const std::string& code,
                                eval::Evaluation evaluation) {
  agent::Trajectory t;
  t.info.id = fmt::format("model__{}__hopper__none__s0", task);
  t.info.model = "model";
  t.info.task = task;
  t.info.status = agent::TrajectoryStatus::kFinished;
  t.messages = {
      {.role = "system", .content = "You write kernels for " + task + "."},
      {.role = "user", .content = "Write " + task + "."},
      {.role = "assistant", .content = "My kernel:\n```cuda\n" + code + "\n```\n", .turn = 1},
      {.role = "user", .content = "It failed.", .turn = 1}};
  evaluation.task = task;
  t.turns.push_back({.turn = 1, .evaluation = std::move(evaluation), .feedback = "It failed."});
  return t;
}

// Three failing first turns (one of a held-out task) and one passing turn.
void write_source_run(const fs::path& run) {
  auto dir = agent::RunDirectory::open(run);
  ASSERT_TRUE(dir) << dir.error().message;
  dir->write_run_json({{"config", Json::object()}});
  dir->save_trajectory(
      trajectory_of("gemm_n7168_k5120", "int broken_a;", testing::compile_error()));
  dir->save_trajectory(trajectory_of("gemm_n4096_k4096", "int broken_b;", testing::incorrect()));
  dir->save_trajectory(trajectory_of("gemm_n256_k7168", "int broken_c;", testing::compile_error()));
  dir->save_trajectory(trajectory_of("gemm_n5120_k5120", "int fine;", testing::passed(1.2)));
}

void write_config(const fs::path& path, const std::string& folder) {
  const std::string teacher = (fs::path(PTXBENCH_TEST_DATA_DIR) / "chain_teacher.sh").string();
  util::write_file_atomic(
      path, fmt::format(R"(fixit: {}
runs: [source-run]
evaluation: {{gpu: false, parallel: 1, compile_cache: "{}"}}
recipes:
  - {{name: balanced, per_task_cap: 1, seed: 7}}
  - {{name: volume, mode: volume}}
teacher: {{command: [sh, "{}"]}}
repair: {{turns: 1, concurrency: 1}}
explain: {{length: short}}
export: {{include_unverified: true, kernelgen: true}}
)",
                        folder, (path.parent_path() / "compile-cache").string(), teacher));
}

util::ProcessResult run_all(const fs::path& config, const fs::path& state,
                            const std::string& kill_at) {
  util::SystemProcessRunner runner;
  return runner.run(
      {.argv = {PTXBENCH_EXE, "fixit", "all", "--config", config.string()},
       .timeout = std::chrono::seconds(900),
       .env = {{"PTXBENCH_TEST_STATE", state.string()}, {"PTXBENCH_TEST_KILL_AT", kill_at}}});
}

// Every file of the exports, by path relative to the folder.
std::map<std::string, std::string> exports_of(const fs::path& folder) {
  std::map<std::string, std::string> out;
  if (!fs::is_directory(folder / "export")) return out;
  for (const auto& entry : fs::recursive_directory_iterator(folder / "export")) {
    if (!entry.is_regular_file()) continue;
    auto text = util::read_file(entry.path());
    out[fs::relative(entry.path(), folder).string()] = text ? *text : "<unreadable>";
  }
  return out;
}

std::vector<std::string> calls_of(const fs::path& state) {
  std::vector<std::string> calls;
  auto text = util::read_file(state / "calls");
  if (!text) return calls;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) calls.push_back(line);
  return calls;
}

TEST(FixitAll, KilledTwiceAndResumedExportsWhatAStraightRunExports) {
  util::TempDir work;
  write_source_run(work.path() / "source-run");
  for (const char* name : {"state-a", "state-b"}) fs::create_directories(work.path() / name);
  write_config(work.path() / "a.yaml", "a");
  write_config(work.path() / "b.yaml", "b");

  util::ProcessResult straight = run_all(work.path() / "a.yaml", work.path() / "state-a", "");
  ASSERT_TRUE(straight.succeeded()) << straight.describe_end() << "\n" << straight.stderr_text;
  const auto expected = exports_of(work.path() / "a");
  // {train,heldout}/{fixit,kernelgen}.jsonl and README.md of two recipes, keyed by the
  // explanations' length and explainer.
  ASSERT_EQ(expected.size(), 10u);
  const fs::path volume = work.path() / "a/export/volume/short-command-teacher";
  auto rows = read_jsonl(volume / "train/fixit.jsonl");
  ASSERT_TRUE(rows) << rows.error().message;
  auto heldout_rows = read_jsonl(volume / "heldout/fixit.jsonl");
  ASSERT_TRUE(heldout_rows) << heldout_rows.error().message;
  rows->insert(rows->end(), heldout_rows->begin(), heldout_rows->end());
  std::string files;
  for (const auto& [file, text] : expected) files += file + "\n";
  ASSERT_EQ(rows->size(), 3u) << files;
  int heldout = 0;
  for (const auto& row : *rows) {
    EXPECT_FALSE(row.at("verified").get<bool>());
    EXPECT_EQ(row.at("provenance").at("run"), (work.path() / "source-run").string());
    heldout += row.at("split") == "heldout" ? 1 : 0;
  }
  EXPECT_EQ(heldout, 1);
  EXPECT_EQ(calls_of(work.path() / "state-a").size(), 6u);  // 3 repairs, 3 explanations

  // Call 2 is the second repair; after the rerun, call 5 is the first explanation.
  const fs::path state = work.path() / "state-b";
  util::ProcessResult in_repair = run_all(work.path() / "b.yaml", state, "2 5");
  ASSERT_EQ(in_repair.term_signal, SIGKILL) << in_repair.describe_end() << "\n"
                                            << in_repair.stderr_text;
  EXPECT_FALSE(fs::exists(work.path() / "b/repairs.jsonl"));
  util::ProcessResult in_explain = run_all(work.path() / "b.yaml", state, "2 5");
  ASSERT_EQ(in_explain.term_signal, SIGKILL) << in_explain.describe_end() << "\n"
                                             << in_explain.stderr_text;
  EXPECT_TRUE(fs::exists(work.path() / "b/repairs.jsonl"));
  EXPECT_FALSE(fs::exists(work.path() / "b/explained.jsonl"));
  EXPECT_FALSE(fs::exists(work.path() / "b/export"));
  util::ProcessResult resumed = run_all(work.path() / "b.yaml", state, "2 5");
  ASSERT_TRUE(resumed.succeeded()) << resumed.describe_end() << "\n" << resumed.stderr_text;

  const auto after = exports_of(work.path() / "b");
  ASSERT_EQ(after.size(), expected.size());
  for (const auto& [file, text] : expected) {
    auto found = after.find(file);
    ASSERT_NE(found, after.end()) << file << " is missing after the resumed run";
    EXPECT_EQ(found->second, text) << file;
  }
  auto calls = calls_of(state);
  ASSERT_GE(calls.size(), 2u);
  EXPECT_EQ(std::count(calls.begin(), calls.end(), calls[0]), 1)
      << "the repair finished before the kill was asked again: " << calls[0];
  // Two calls more than the straight run: those the kills cut short (2 and 5).
  EXPECT_EQ(calls.size(), 8u);
}

// --fixit, --runs, --no-gpu, --include-unverified and --kernelgen lay a folder, runs and the
// export switches over a config that names others (as a study runs a user's config).
TEST(FixitAll, FlagsLayTheFolderAndRunsOverTheConfig) {
  util::TempDir work;
  write_source_run(work.path() / "source-run");
  fs::create_directories(work.path() / "state");
  const std::string teacher = (fs::path(PTXBENCH_TEST_DATA_DIR) / "chain_teacher.sh").string();
  util::write_file_atomic(
      work.path() / "user.yaml",
      fmt::format("fixit: not-this\nruns: [not-this-run]\n"
                  "evaluation: {{gpu: true, parallel: 1, compile_cache: \"{}\"}}\nteacher: "
                  "{{command: [sh, \"{}\"]}}\n"
                  "repair: {{turns: 1, concurrency: 1}}\nexplain: {{length: short}}\n",
                  (work.path() / "compile-cache").string(), teacher));
  util::SystemProcessRunner runner;
  auto result = runner.run(
      {.argv = {PTXBENCH_EXE, "fixit", "all", "--config", (work.path() / "user.yaml").string(),
                "--fixit", (work.path() / "mine").string(), "--runs",
                (work.path() / "source-run").string(), "--no-gpu", "--include-unverified",
                "--kernelgen"},
       .timeout = std::chrono::seconds(900),
       .env = {{"PTXBENCH_TEST_STATE", (work.path() / "state").string()}}});
  ASSERT_TRUE(result.succeeded()) << result.describe_end() << "\n" << result.stderr_text;
  EXPECT_FALSE(fs::exists(work.path() / "not-this"));
  const fs::path exported = work.path() / "mine/export/volume/short-command-teacher";
  EXPECT_NE(result.stdout_text.find("-> " + exported.string() + " (card: README.md)"),
            std::string::npos)
      << result.stdout_text;
  auto rows = read_jsonl(exported / "train/fixit.jsonl");
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(rows->size(), 2u);  // unverified (no GPU stages), exported as asked
  auto kernelgen = read_jsonl(exported / "train/kernelgen.jsonl");
  ASSERT_TRUE(kernelgen) << kernelgen.error().message;
  EXPECT_EQ(kernelgen->size(), 1u);  // the run's passing turn
}

// A bad config is a usage error (exit 2) naming the file and the field, before anything runs.
TEST(FixitAll, ConfigProblemsAreUsageErrorsNamingTheField) {
  util::TempDir work;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"repair: {turns: 0}", "repair.turns: expected an integer from 1 to 64 (got 0)"},
      {"repair: {concurrency: -4}",
       "repair.concurrency: expected an integer from 1 to 256 (got -4)"},
      {"evaluation: {gpu: \"yes\"}", "evaluation.gpu: expected true or false"},
      {"solutions: 5", "solutions: expected a string"},
      {"mine: {bogus: 1}", "mine.bogus: unknown field"},
      {"mine: {contexts: [nowhere]}", "mine.contexts: unknown context level nowhere"},
      {"teacher: 3", "teacher: expected a mapping"},
      {"teacher: {}", "teacher: expected \"replay\""},
      {"explain: {length: tiny}", "explain.length: length bin 'tiny'"},
      {"recipes: 7", "recipes: expected a list"},
  };
  for (const auto& [line, message] : cases) {
    const fs::path config = work.path() / "bad.yaml";
    util::write_file_atomic(config, "fixit: out\nruns: []\n" + line + "\n");
    util::SystemProcessRunner runner;
    auto result = runner.run({.argv = {PTXBENCH_EXE, "fixit", "all", "--config", config.string()},
                              .timeout = std::chrono::seconds(60)});
    EXPECT_EQ(result.exit_code, 2) << line << "\n" << result.stderr_text;
    EXPECT_NE(result.stderr_text.find(config.string() + ": " + message), std::string::npos)
        << line << "\n"
        << result.stderr_text;
    EXPECT_FALSE(fs::exists(work.path() / "out")) << line;
  }
}

}  // namespace
}  // namespace ptxbench::fixit
