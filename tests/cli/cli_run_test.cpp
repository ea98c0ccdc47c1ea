// `ptxbench run` (and `report`, `demo`) fed what a hostile or clumsy user would give it: bad
// numbers, files that are not files, misnamed replays, raw bytes, an endpoint that echoes the
// API key. Each case is a clear exit 2 naming the problem, or a run that records what happened.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "loopback_server.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"
#include "ptxbench/util/utf8.hpp"
#include "run_cli.hpp"

namespace ptxbench::cli {
namespace {
namespace fs = std::filesystem;
using Json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kTask = "gemm_n7168_k5120";

util::ProcessResult ptxbench(std::vector<std::string> args,
                             std::vector<std::pair<std::string, std::string>> env = {}) {
  return testing::run_cli(std::move(args), std::chrono::seconds(120), std::move(env));
}

// A replay run of one task on Hopper without the GPU stages, into dir/run.
std::vector<std::string> replay_run(const fs::path& dir, const fs::path& replay) {
  return {"run",  "--model", "m",   "--provider", "replay", "--replay",
          replay, "--tasks", kTask, "--no-gpu",   "--out",  (dir / "run").string()};
}

std::vector<Json> trajectories(const fs::path& run) {
  std::vector<Json> out;
  for (const auto& entry : fs::directory_iterator(run / "trajectories")) {
    if (entry.path().filename().string().starts_with(".")) continue;
    out.push_back(Json::parse(util::read_file(entry.path()).value()));
  }
  return out;
}

TEST(CliRun, NumbersOutOfRangeAreUsageErrors) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "reply.md", "no code");
  auto base = replay_run(dir.path(), dir.path() / "reply.md");
  for (const auto& [flag, value, field] :
       {std::tuple{"--parallel", "-4", "parallel"},
        std::tuple{"--target-speedup", "-2", "target_speedup"},
        std::tuple{"--samples", "0", "samples"}, std::tuple{"--turns", "100000", "turns"}}) {
    auto args = base;
    args.insert(args.end(), {flag, value});
    auto r = ptxbench(args);
    EXPECT_EQ(r.exit_code, 2) << flag << " " << value << ": " << r.stderr_text;
    EXPECT_THAT(r.stderr_text, HasSubstr(field));
  }
  util::write_file_atomic(dir.path() / "run.yaml", "samples: 4294967297\n");
  auto wrapped = ptxbench({"run", "--config", (dir.path() / "run.yaml").string()});
  EXPECT_EQ(wrapped.exit_code, 2);
  EXPECT_THAT(wrapped.stderr_text, HasSubstr("run.yaml: samples: expected an integer from 1"));
}

TEST(CliRun, ConfigsThatAreNotRegularFilesAreRefusedAtOnce) {
  util::TempDir dir;
  const auto fifo = dir.path() / "fifo.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto loop = dir.path() / "loop.yaml";
  fs::create_symlink(loop, loop);
  for (const auto& [path, why] :
       {std::pair{fs::path("/dev/zero"), "a character device"}, std::pair{fifo, "a FIFO"},
        std::pair{dir.path(), "a directory"}, std::pair{loop, "symbolic links"}}) {
    auto r = ptxbench({"run", "--config", path.string()});
    EXPECT_EQ(r.exit_code, 2) << path << ": " << r.stderr_text;
    EXPECT_THAT(r.stderr_text, HasSubstr(path.string()));
    EXPECT_THAT(r.stderr_text, HasSubstr(why));
  }
  util::write_file_atomic(dir.path() / "twice.yaml", "turns: 2\nturns: 3\n");
  auto twice = ptxbench({"run", "--config", (dir.path() / "twice.yaml").string()});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_THAT(twice.stderr_text, HasSubstr("twice.yaml: line 2: turns: duplicate key"));
}

TEST(CliRun, AMisnamedReplaySaysWhyNothingRan) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "replies" / "gemm_typo.md", "no code");
  auto r = ptxbench(replay_run(dir.path(), dir.path() / "replies"));
  EXPECT_EQ(r.exit_code, 2) << r.stderr_text;
  EXPECT_THAT(r.stderr_text, HasSubstr("warning: m__gemm_n7168_k5120__hopper__none__s0: 0 turns"));
  EXPECT_THAT(r.stderr_text, HasSubstr("gemm_n7168_k5120__hopper"));  // the names it looked for
  EXPECT_THAT(r.stderr_text, HasSubstr("found gemm_typo"));
}

TEST(CliRun, WithoutTheGpuOneTurnUnlessAllTurnsAreAsked) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "replies" / "turn-1.md", "no code, turn 1");
  util::write_file_atomic(dir.path() / "replies" / "turn-2.md", "no code, turn 2");
  auto args = replay_run(dir.path(), dir.path() / "replies");
  args.insert(args.end(), {"--turns", "3"});
  auto one = ptxbench(args);
  ASSERT_EQ(one.exit_code, 0) << one.stderr_text;
  EXPECT_THAT(one.stderr_text, HasSubstr("running 1 turn per trajectory"));
  EXPECT_EQ(trajectories(dir.path() / "run").at(0)["turns"].size(), 1u);

  args[args.size() - 3] = (dir.path() / "all").string();  // another --out
  args.push_back("--all-turns");
  auto all = ptxbench(args);
  ASSERT_EQ(all.exit_code, 0) << all.stderr_text;
  EXPECT_EQ(trajectories(dir.path() / "all").at(0)["turns"].size(), 2u);
}

TEST(CliRun, CellsRunExactlyTheListedPairs) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "reply.md", "no code");
  auto r = ptxbench({"run", "--model", "m", "--provider", "replay", "--replay",
                     (dir.path() / "reply.md").string(), "--cells",
                     std::string(kTask) + ":isa,mha_fwd_lse_d128:none", "--no-gpu", "--out",
                     (dir.path() / "run").string()});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  std::set<std::string> ids;
  for (const auto& t : trajectories(dir.path() / "run")) ids.insert(t["info"]["id"]);
  EXPECT_EQ(ids, (std::set<std::string>{"m__gemm_n7168_k5120__hopper__isa__s0",
                                        "m__mha_fwd_lse_d128__hopper__none__s0"}));
  auto unknown = ptxbench({"run", "--model", "m", "--provider", "replay", "--replay",
                           (dir.path() / "reply.md").string(), "--cells", "gemm_*:isa", "--out",
                           (dir.path() / "other").string()});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.stderr_text, HasSubstr("cells: 'gemm_*' is not a task name"));
}

// Raw bytes in a reply and Chinese text in a failing line of code (nvcc echoes it, feedback cuts
// it): the run records both turns, the reply's bytes survive exactly, and a rerun resumes.
TEST(CliRun, BytesThatAreNotUtf8AreRecordedLosslessly) {
  util::TempDir dir;
  const std::string raw = "no code here: \xFF\xFE raw bytes and a cut \xE4\xB8";
  const std::string chinese = "\xE4\xB8\xAD\xE6\x96\x87";
  std::string long_line = "int x = ";
  while (long_line.size() < 400) long_line += chinese;
  util::write_file_atomic(dir.path() / "replies" / "turn-1.md", raw);
  util::write_file_atomic(dir.path() / "replies" / "turn-2.md",
                          "```cuda\n" + long_line + " oops;\n```\n");
  auto args = replay_run(dir.path(), dir.path() / "replies");
  args.insert(args.end(), {"--turns", "2", "--all-turns"});
  auto r = ptxbench(args);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  auto all = trajectories(dir.path() / "run");
  ASSERT_EQ(all.size(), 1u);
  const Json& t = all[0];
  ASSERT_EQ(t["turns"].size(), 2u);
  EXPECT_EQ(t["turns"][1]["evaluation"]["verdict"], "COMPILE_ERROR");
  const Json& reply = t["messages"][2];
  ASSERT_EQ(reply["role"], "assistant");
  EXPECT_EQ(util::base64_decode(reply["content_base64"].get<std::string>()), raw);
  EXPECT_TRUE(util::is_valid_utf8(t["turns"][1]["feedback"].get<std::string>()));
  auto again = ptxbench(args);
  EXPECT_EQ(again.exit_code, 0) << again.stderr_text;
  EXPECT_THAT(again.stderr_text, HasSubstr("1 finished before"));
}

TEST(CliRun, EchoedApiKeysAppearNowhere) {
  constexpr const char* kKey = "sk-cli-echo-7d1e9c3a";
  testing::LoopbackServer server(
      [](int, const httplib::Request& request, httplib::Response& response) {
        response.status = 401;
        response.set_content(
            "denied; you sent Authorization: " + request.get_header_value("Authorization"),
            "text/plain");
      });
  util::TempDir dir;
  auto r = ptxbench({"run", "--model", "m", "--base-url", server.url() + "/v1", "--api-key-env",
                     "PTXBENCH_TEST_CLI_KEY", "--max-attempts", "1", "--tasks", kTask, "--no-gpu",
                     "--out", (dir.path() / "run").string()},
                    {{"PTXBENCH_TEST_CLI_KEY", kKey}});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;  // a provider failure
  EXPECT_THAT(r.stderr_text, HasSubstr("[secret removed]"));
  EXPECT_THAT(r.stderr_text + r.stdout_text, Not(HasSubstr(kKey)));
  for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
    if (!entry.is_regular_file()) continue;
    EXPECT_THAT(util::read_file(entry.path()).value(), Not(HasSubstr(kKey))) << entry.path();
  }
}

TEST(CliReport, OnlyCorruptTrajectoriesIsAnError) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "run" / "trajectories" / "a.json", "{ not json");
  auto r =
      ptxbench({"report", (dir.path() / "run").string(), "--out", (dir.path() / "rep").string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.stderr_text, HasSubstr("no readable trajectory"));
}

TEST(CliEval, KeepArtifactsOnAFileIsAUsageError) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "file", "x");
  util::write_file_atomic(dir.path() / "k.cu", "__global__ void k() {}\n");
  auto r = ptxbench({"eval", (dir.path() / "k.cu").string(), "--task", kTask, "--arch", "hopper",
                     "--no-gpu", "--keep-artifacts", (dir.path() / "file").string()});
  EXPECT_EQ(r.exit_code, 2) << r.stderr_text;
  EXPECT_THAT(r.stderr_text, HasSubstr("exists and is not a directory"));
}

TEST(CliDemo, MissingSolutionsFolderIsAUsageError) {
  auto r = ptxbench({"demo", "--solutions", "/nonexistent/ptxbench-solutions"});
  EXPECT_EQ(r.exit_code, 2) << r.stdout_text << r.stderr_text;
  EXPECT_THAT(r.stderr_text, HasSubstr("/nonexistent/ptxbench-solutions"));
}

}  // namespace
}  // namespace ptxbench::cli
