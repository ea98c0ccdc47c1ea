// Every command that judges candidates goes through one engine (eval/engine.hpp): an unusable
// strict sandbox is refused by each the same way (exit 2, one message), and the engine's
// settings given as flags reach the evaluations each command runs: --compile-timeout bounds a
// stand-in nvcc, --gpus pins the stand-in GPU worker (tests/eval/worker/fake_worker.cpp, whose
// `info` call logs the CUDA_VISIBLE_DEVICES it got), --correctness-rule decides how the stand-in
// worker's outputs are judged and --racecheck-timeout stops a stand-in compute-sanitizer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"
#include "run_cli.hpp"

namespace ptxbench::cli {
namespace {
using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr const char* kTask = "gemm_n7168_k5120";
constexpr const char* kReply = "Here:\n```cuda\nvoid run() {}\n```\n";

class CliEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    util::write_file_atomic(dir_.path() / "k.cu", "void run() {}\n");
    util::write_file_atomic(dir_.path() / "reply.md", kReply);
    util::write_file_atomic(dir_.path() / "tokens", "tester 0123456789abcdef0123456789abcdef 4\n");
    // One solution for demo and fixit demo to replay.
    fs::create_directories(dir_.path() / "solutions" / "hopper");
    util::write_file_atomic(
        dir_.path() / "solutions" / "hopper" / "k.cu",
        std::string("// ptxbench: task=") + kTask + " arch=hopper expect=PASSED\nvoid run() {}\n");
    // An nvcc that answers --version and otherwise takes far longer than --compile-timeout.
    fs::create_directories(bin());
    util::write_file_atomic(bin() / "nvcc",
                            "#!/bin/sh\n"
                            "if [ \"$1\" = --version ]; then echo 'release 13.0'; exit 0; fi\n"
                            "sleep 30\n");
    fs::permissions(bin() / "nvcc", fs::perms::owner_all);
  }

  fs::path bin() const { return dir_.path() / "bin"; }
  fs::path path(const std::string& name) const { return dir_.path() / name; }

  util::ProcessResult ptxbench(std::vector<std::string> args,
                               std::vector<std::pair<std::string, std::string>> env = {}) {
    return testing::run_cli(std::move(args), std::chrono::seconds(120), std::move(env),
                            dir_.path());
  }

  // Each command's argv, with what it needs besides the engine's flags.
  std::map<std::string, std::vector<std::string>> commands() const {
    return {
        {"eval", {"eval", path("k.cu").string(), "--task", kTask, "--arch", "hopper", "--json"}},
        {"run",
         {"run", "--model", "m", "--provider", "command", "--command",
          "/bin/cat " + path("reply.md").string(), "--tasks", kTask, "--turns", "1", "--out",
          path("run").string()}},
        {"demo",
         {"demo", "--solutions", path("solutions").string(), "--out", path("demo").string(),
          "--all"}},
        {"fixit demo",
         {"fixit", "demo", "--solutions", path("solutions").string(), "--out",
          path("fixit").string()}},
        {"serve",
         {"serve", "--tokens", path("tokens").string(), "--journal", path("journal").string(),
          "--port", "0"}},
    };
  }

  util::TempDir dir_;
};

TEST_F(CliEngine, AnUnusableStrictSandboxIsRefusedTheSameWayByEveryCommand) {
  for (auto [name, args] : commands()) {
    args.insert(args.end(), {"--sandbox", "strict"});
    auto r = ptxbench(args, {{"PTXBENCH_BWRAP", "/nonexistent/bwrap"}});
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.stderr_text;
    EXPECT_THAT(r.stderr_text,
                HasSubstr("ptxbench " + name +
                          ": --sandbox strict: the sandbox cannot be set up here (partial: "))
        << name;
    EXPECT_THAT(r.stderr_text, HasSubstr("see docs/sandbox.md, or choose --sandbox "
                                         "best-effort|off"))
        << name;
  }
}

// The engine's flags have one name and one help text in every command, and a command refuses
// a setting it does not offer.
TEST_F(CliEngine, EveryCommandOffersTheEngineFlagsWithOneHelpText) {
  const std::string gpus_help = "all, or a list of GPUs (0,1,3): one GPU slot per GPU";
  for (std::vector<std::string> command : std::vector<std::vector<std::string>>{
           {"eval"}, {"run"}, {"serve"}, {"demo"}, {"fixit", "repair"}, {"fixit", "demo"}}) {
    command.push_back("--help");
    auto r = ptxbench(command);
    ASSERT_EQ(r.exit_code, 0) << command.front() << ": " << r.stderr_text;
    for (const char* flag : {"--sandbox", "--compile-timeout", "--compile-memory", "--parallel",
                             "--no-gpu", "--gpus", "--correctness-rule", "--racecheck-timeout"})
      EXPECT_THAT(r.stdout_text, HasSubstr(flag)) << command.front() << " " << flag;
    EXPECT_THAT(r.stdout_text, HasSubstr(gpus_help)) << command.front();
  }
  auto serve = ptxbench({"serve", "--tokens", path("tokens").string(), "--keep-artifacts", "x"});
  EXPECT_EQ(serve.exit_code, 2);
  EXPECT_THAT(serve.stderr_text, HasSubstr("--keep-artifacts"));
  auto mine = ptxbench({"fixit", "mine", "--fixit", path("f").string(), "--no-gpu", "runs"});
  EXPECT_EQ(mine.exit_code, 2);
  EXPECT_THAT(mine.stderr_text, HasSubstr("--no-gpu"));
}

// The first turn's evaluation record of a run directory's only trajectory.
nlohmann::json first_record(const fs::path& run) {
  for (const auto& entry : fs::directory_iterator(run / "trajectories")) {
    auto text = util::read_file(entry.path());
    if (!text) continue;
    auto json = nlohmann::json::parse(*text);
    return json.at("turns").at(0).at("evaluation");
  }
  return nullptr;
}

TEST_F(CliEngine, CompileTimeoutAndGpusReachTheEngineOfEveryCommand) {
  for (auto [name, args] : commands()) {
    if (name == "serve") continue;  // tests/serve/serve_engine_test.cpp
    const auto log = path(name + ".log");
    args.insert(args.end(), {"--sandbox", "off", "--compile-timeout", "1", "--gpus", "3"});
    auto r = ptxbench(args, {{"PATH", bin().string() + ":/usr/bin:/bin"},
                             {"PTXBENCH_WORKER", FAKE_WORKER_PATH},
                             {"FAKE_WORKER_LOG", log.string()}});
    nlohmann::json record;
    if (name == "eval") {
      record = nlohmann::json::parse(r.stdout_text.substr(0, r.stdout_text.find('\n')));
    } else if (name == "fixit demo") {
      record = first_record(path("fixit") / "source-run");
    } else {
      record = first_record(path(name));
    }
    ASSERT_TRUE(record.is_object()) << name << ": " << r.stdout_text << r.stderr_text;
    EXPECT_EQ(record.at("verdict"), "COMPILE_ERROR") << name;
    EXPECT_THAT(record.at("message").get<std::string>(), HasSubstr("timed out after 1 s")) << name;
    auto calls = util::read_file(log);
    ASSERT_TRUE(calls.has_value()) << name << ": the worker was never asked";
    EXPECT_THAT(*calls, HasSubstr("info 3\n")) << name;
  }
}

// The message of one stage of a record, "STATUS: message".
std::string stage_of(const nlohmann::json& record, const std::string& stage) {
  for (const auto& s : record.value("stages", nlohmann::json::array())) {
    if (s.value("stage", "") == stage) return s.value("status", "") + ": " + s.value("message", "");
  }
  return "(no " + stage + " stage)";
}

// A real candidate (real nvcc, cuobjdump and nvdisasm, one compile shared through the compile
// cache) reaches the stand-in GPU worker from every command: its outputs are judged by the rule
// asked for (the GEMM's own rule is as_accurate_as_library), and racecheck, which a stand-in
// compute-sanitizer makes take 14 s, is stopped once its 1 s are up and the correctness check
// beside it is done (not at the default 15 s) and "not checked". The stand-in's 14 s is as close
// to the default as the check allows, so that a slow correctness check on a loaded machine does
// not let racecheck finish first.
TEST_F(CliEngine, TheCorrectnessRuleAndTheRacecheckDeadlineReachTheEngineOfEveryCommand) {
  auto source = util::read_file(std::string(PTXBENCH_CANDIDATES_DIR) + "/hopper_wgmma_tma.cu");
  ASSERT_TRUE(source.has_value());
  const std::string text =
      std::string("// ptxbench: task=") + kTask + " arch=hopper expect=PASSED\n" + *source;
  util::write_file_atomic(path("k.cu"), text);
  util::write_file_atomic(path("solutions") / "hopper" / "k.cu", text);
  util::write_file_atomic(path("reply.md"), "Here:\n```cuda\n" + text + "```\n");
  const fs::path tools = path("tools");
  fs::create_directories(tools);
  util::write_file_atomic(tools / "compute-sanitizer",
                          "#!/bin/sh\n[ \"$1\" = --help ] && exit 0\n"
                          "case \"$*\" in *racecheck*) sleep 14;; esac\n"
                          "echo '========= ERROR SUMMARY: 0 errors'\n");
  fs::permissions(tools / "compute-sanitizer", fs::perms::owner_all);
  for (auto [name, args] : commands()) {
    if (name == "serve") continue;  // tests/serve/serve_engine_test.cpp
    const auto log = path(name + ".gpu.log");
    args.insert(args.end(), {"--sandbox", "off", "--compile-cache", path("cache").string(),
                             "--correctness-rule", "matches_library", "--racecheck-timeout", "1"});
    auto r = ptxbench(args, {{"PATH", tools.string() + ":/usr/local/cuda/bin:/usr/bin:/bin"},
                             {"PTXBENCH_WORKER", FAKE_WORKER_PATH},
                             {"FAKE_WORKER_LOG", log.string()}});
    nlohmann::json record;
    if (name == "eval") {
      record =
          nlohmann::json::parse(r.stdout_text.substr(0, r.stdout_text.find('\n')), nullptr, false);
    } else if (name == "fixit demo") {
      record = first_record(path("fixit") / "source-run");
    } else {
      record = first_record(path(name));
    }
    ASSERT_TRUE(record.is_object()) << name << ": " << r.stdout_text << r.stderr_text;
    EXPECT_THAT(stage_of(record, "correctness"), HasSubstr("within atol="))
        << name << ": " << record.dump();
    EXPECT_THAT(stage_of(record, "sanitize"), HasSubstr("racecheck (timed out")) << name;
    EXPECT_THAT(stage_of(record, "sanitize"), ::testing::StartsWith("not_checked")) << name;
    // The stand-in racecheck takes 14 s: only the 1 s deadline, not the default 15 s, stops it.
    auto calls = util::read_file(log);
    ASSERT_TRUE(calls.has_value()) << name << ": the worker was never asked";
    EXPECT_THAT(*calls, HasSubstr("judge ")) << name;
  }
}

}  // namespace
}  // namespace ptxbench::cli
