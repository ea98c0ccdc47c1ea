// The retrieval context level everywhere: run.yaml's `retrieval` section, `ptxbench run
// --context retrieval` end to end over a replay provider (the second turn's prompt holds the
// repairs retrieved for the first turn's failure), and the service's RL environment with a Fixit
// index (`ptxbench serve --fixit`).
#include <gtest/gtest.h>

#include <fstream>

#include "../fixit/fixit_samples.hpp"
#include "ptxbench/agent/run_config.hpp"
#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/fixit/retrieve.hpp"
#include "ptxbench/util/process.hpp"
#include "service_harness.hpp"

namespace ptxbench::serve {
namespace {
using namespace ptxbench::testing;
using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kTask = "gemm_n7168_k5120";

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A Fixit folder with two verified, explained repairs of the task: a timeout, whose row id is
// the smaller (so a first turn, which ties them, shows it), and a compile error. Returns the id
// of the compile error's row.
std::string write_fixit_folder(const fs::path& dir) {
  auto folder = fixit::FixitFolder::open(dir);
  EXPECT_TRUE(folder) << folder.error().message;
  auto first = mined_row(kTask, eval::Verdict::kTimeout, 1, 0);
  auto second = mined_row(kTask, eval::Verdict::kCompileError, 1, 1);
  if (second.id < first.id) std::swap(first.id, second.id);
  std::vector<fixit::RepairRow> repairs;
  std::vector<fixit::VerifiedRow> verified;
  std::vector<fixit::ExplainedRow> explained;
  for (const auto* row : {&first, &second}) {
    repairs.push_back({.mined_id = row->id,
                       .teacher = "t",
                       .status = fixit::RepairStatus::kRepaired,
                       .code = "// the repaired kernel\n"});
    verified.push_back({.mined_id = row->id, .status = fixit::VerifyStatus::kVerified});
    explained.push_back({.mined_id = row->id, .reasoning = "the fence was missing"});
  }
  folder->write_mined({first, second});
  folder->write_repairs(repairs);
  folder->write_verified(verified);
  folder->write_explained(explained);
  return second.id;
}

TEST(RetrievalConfig, RunYamlNamesTheFixitFolderAndK) {
  auto config = agent::run_config_from_json(
      {{"contexts", {"retrieval"}}, {"retrieval", {{"fixit", "work/fixit"}, {"k", 2}}}}, "/runs");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->contexts, std::vector{prompt::ContextLevel::kRetrieval});
  EXPECT_EQ(config->retrieval.fixit, fs::path("/runs/work/fixit"));
  EXPECT_EQ(config->retrieval.k, 2);
  auto bad_k = agent::run_config_from_json({{"retrieval", {{"k", 0}}}}, "");
  ASSERT_FALSE(bad_k);
  EXPECT_EQ(bad_k.error().message.rfind("retrieval.k: expected an integer from 1 to 64", 0), 0u);
  auto unknown = agent::run_config_from_json({{"retrieval", {{"folder", "x"}}}}, "");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message, "retrieval.folder: unknown field (expected fixit, k)");
}

TEST(RetrievalRun, TheSecondTurnsPromptHoldsTheRetrievedRepairs) {
  if (!compile::find_nvcc()) GTEST_SKIP() << "nvcc not installed: turn 1 must fail to compile";
  util::TempDir dir;
  const auto compile_error_row = write_fixit_folder(dir.path() / "fixit");
  // Turn 1 does not compile; turn 2 is whatever.
  write(dir.path() / "replay" / "turn-1.md",
        "```cuda\n__global__ void k() { undefined_identifier(); }\n```\n");
  write(dir.path() / "replay" / "turn-2.md", "no code this time\n");
  write(dir.path() / "run.yaml", fmt::format(R"(models:
  - {{name: replayed, provider: replay, path: replay}}
tasks: [{}]
contexts: [retrieval]
turns: 2
retrieval: {{fixit: fixit, k: 1}}
evaluation: {{gpu: false, all_turns_without_gpu: true, sandbox: best-effort}}
out: run
)",
                                             kTask));
  util::SystemProcessRunner runner;
  auto result =
      runner.run({.argv = {PTXBENCH_EXE, "run", "--config", (dir.path() / "run.yaml").string()},
                  .timeout = std::chrono::seconds(300)});
  ASSERT_TRUE(result.succeeded()) << result.describe_end() << "\n" << result.stderr_text;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir.path() / "run" / "trajectories")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  ASSERT_EQ(files.size(), 1u);
  auto trajectory = json::parse(*util::read_file(files[0]));
  const auto& messages = trajectory.at("messages");
  ASSERT_GE(messages.size(), 4u) << messages.dump(1);
  // The first turn's system prompt carries the task's repairs; the prompt of the second turn
  // (after the compile error) the repairs of failures like it.
  EXPECT_NE(messages[0]["content"].get<std::string>().find(
                "Repair 1: gemm_n7168_k5120 on hopper, TIMEOUT"),
            std::string::npos);
  EXPECT_EQ(trajectory["turns"][0]["evaluation"]["verdict"], "COMPILE_ERROR");
  const auto second_prompt = messages[3]["content"].get<std::string>();
  EXPECT_NE(second_prompt.find("failures like this one (COMPILE_ERROR)"), std::string::npos)
      << second_prompt;
  EXPECT_NE(second_prompt.find("### Repair: gemm_n7168_k5120 on hopper, COMPILE_ERROR [" +
                               compile_error_row + "]"),
            std::string::npos)
      << second_prompt;
  auto run = json::parse(*util::read_file(dir.path() / "run" / "run.json"));
  EXPECT_EQ(run["config"]["fixit"]["documents"], 2) << run.dump(1);
}

RetrievalHooks hooks_of(const fs::path& folder) {
  auto documents = fixit::load_retrieval_documents(folder, serve_suite(), false);
  EXPECT_TRUE(documents) << documents.error().message;
  auto index = std::make_shared<const fixit::RetrievalIndex>(std::move(*documents));
  return {.first_turn = fixit::retrieval_hook(index, 1),
          .after_failure = fixit::retrieval_feedback_hook(index, 1)};
}

httplib::Result post(httplib::Client& http, const std::string& path, const json& body) {
  return http.Post(path.c_str(), body.dump(), "application/json");
}

TEST(RetrievalService, AnEpisodeOfTheRetrievalLevelSeesTheRepairs) {
  util::TempDir dir;
  const auto compile_error_row = write_fixit_folder(dir.path() / "fixit");
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function(), {.retrieval = hooks_of(dir.path() / "fixit")});
  auto http = harness.client(kTrainer);
  auto reset =
      post(*http, "/v1/env/reset",
           {{"task", kTask}, {"arch", "hopper"}, {"context", "retrieval"}, {"max_turns", 3}});
  ASSERT_EQ(reset->status, 200) << reset->body;
  const auto episode = body_of(reset);
  EXPECT_NE(
      episode["messages"][0]["content"].get<std::string>().find("Repair 1: " + std::string(kTask)),
      std::string::npos);
  // The prompt route of the same level shows the same first turn.
  auto prompt = http->Get(
      fmt::format("/v1/tasks/{}/prompt?arch=hopper&context=retrieval", kTask).c_str());
  ASSERT_EQ(prompt->status, 200) << prompt->body;
  EXPECT_EQ(body_of(prompt)["messages"], episode["messages"]);
  // fake_evaluate judges code without PASS as a compile error.
  auto step = body_of(post(*http, "/v1/env/step",
                           {{"session", episode["session"]}, {"reply", "```cuda\nbroken\n```"}}));
  EXPECT_EQ(step["record"]["verdict"], "COMPILE_ERROR");
  EXPECT_NE(step["feedback"].get<std::string>().find("failures like this one (COMPILE_ERROR)"),
            std::string::npos)
      << step["feedback"];
  EXPECT_NE(step["feedback"].get<std::string>().find("[" + compile_error_row + "]"),
            std::string::npos);
  // The last turn's feedback, which no model reads, gets no repairs.
  post(*http, "/v1/env/step", {{"session", episode["session"]}, {"reply", "```cuda\nb\n```"}});
  auto last = body_of(
      post(*http, "/v1/env/step", {{"session", episode["session"]}, {"reply", "```cuda\nc\n```"}}));
  EXPECT_TRUE(last["done"]);
  EXPECT_EQ(last["feedback"].get<std::string>().find("verified repairs"), std::string::npos);
}

TEST(RetrievalService, WithoutAFixitFolderTheLevelIsRefused) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  auto reset = post(*harness.client(kTrainer), "/v1/env/reset",
                    {{"task", kTask}, {"arch", "hopper"}, {"context", "retrieval"}});
  EXPECT_EQ(reset->status, 400);
  EXPECT_NE(body_of(reset)["error"].get<std::string>().find("ptxbench serve --fixit"),
            std::string::npos);
  auto prompt = harness.client(kTrainer)->Get(
      fmt::format("/v1/tasks/{}/prompt?arch=hopper&context=retrieval", kTask).c_str());
  EXPECT_EQ(prompt->status, 400);
  EXPECT_NE(body_of(prompt)["error"].get<std::string>().find("ptxbench serve --fixit"),
            std::string::npos);
}

}  // namespace
}  // namespace ptxbench::serve
