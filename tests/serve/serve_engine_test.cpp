// `ptxbench serve` opens the same engine as every other command (eval/engine.hpp): an unusable
// strict sandbox is refused at start (tests/cli/cli_engine_test.cpp covers the message), and the
// engine's flags reach its evaluations: --compile-timeout bounds a stand-in nvcc, --gpus pins
// the stand-in GPU worker (tests/eval/worker/fake_worker.cpp logs the CUDA_VISIBLE_DEVICES of
// its `info` call), --correctness-rule decides how its outputs are judged and
// --racecheck-timeout stops a stand-in compute-sanitizer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "serve_process.hpp"

namespace ptxbench::serve {
namespace {
using ::testing::HasSubstr;
namespace fs = std::filesystem;
using testing::ServeProcess;

TEST(ServeEngine, CompileTimeoutAndGpusReachTheEngine) {
  util::TempDir dir;
  const auto bin = dir.path() / "bin";
  fs::create_directories(bin);
  util::write_file_atomic(bin / "nvcc",
                          "#!/bin/sh\n"
                          "if [ \"$1\" = --version ]; then echo 'release 13.0'; exit 0; fi\n"
                          "sleep 30\n");
  fs::permissions(bin / "nvcc", fs::perms::owner_all);
  const auto log = dir.path() / "worker.log";
  ServeProcess serve(dir.path(), {"--sandbox", "off", "--compile-timeout", "1", "--gpus", "3"},
                     {{"PATH", bin.string() + ":/usr/bin:/bin"},
                      {"PTXBENCH_WORKER", FAKE_WORKER_PATH},
                      {"FAKE_WORKER_LOG", log.string()}});
  const int port = serve.wait_port();
  ASSERT_GT(port, 0) << "serve did not start";
  auto http = serve.client(port);
  const auto id = testing::submit_code(*http, "void run() {}\n");
  ASSERT_FALSE(id.empty());
  auto polled = testing::poll_done(*http, id, std::chrono::seconds(60));
  ASSERT_EQ(polled["state"], "done") << polled.dump();
  const auto& record = polled.at("record");
  EXPECT_EQ(record.at("verdict"), "COMPILE_ERROR") << record.dump();
  EXPECT_THAT(record.at("message").get<std::string>(), HasSubstr("timed out after 1 s"));
  auto calls = util::read_file(log);
  ASSERT_TRUE(calls.has_value()) << "the worker was never asked";
  EXPECT_THAT(*calls, HasSubstr("info 3\n"));
  EXPECT_EQ(serve.terminate(), 0);
}

// As tests/cli/cli_engine_test.cpp does for the other commands: a real candidate (real nvcc)
// reaches the stand-in GPU worker, judged by the rule asked for (the GEMM's own rule is
// as_accurate_as_library); racecheck, 20 s long in a stand-in compute-sanitizer, is stopped once
// its 1 s are up and the correctness check beside it is done, and is "not checked".
TEST(ServeEngine, TheCorrectnessRuleAndTheRacecheckDeadlineReachTheEngine) {
  util::TempDir dir;
  auto source = util::read_file(std::string(PTXBENCH_CANDIDATES_DIR) + "/hopper_wgmma_tma.cu");
  ASSERT_TRUE(source.has_value());
  const auto bin = dir.path() / "bin";
  fs::create_directories(bin);
  util::write_file_atomic(bin / "compute-sanitizer",
                          "#!/bin/sh\n[ \"$1\" = --help ] && exit 0\n"
                          "case \"$*\" in *racecheck*) sleep 12;; esac\n"
                          "echo '========= ERROR SUMMARY: 0 errors'\n");
  fs::permissions(bin / "compute-sanitizer", fs::perms::owner_all);
  const auto log = dir.path() / "worker.log";
  ServeProcess serve(
      dir.path(),
      {"--sandbox", "off", "--correctness-rule", "matches_library", "--racecheck-timeout", "1"},
      {{"PATH", bin.string() + ":/usr/local/cuda/bin:/usr/bin:/bin"},
       {"PTXBENCH_WORKER", FAKE_WORKER_PATH},
       {"FAKE_WORKER_LOG", log.string()}});
  const int port = serve.wait_port();
  ASSERT_GT(port, 0) << "serve did not start";
  auto http = serve.client(port);
  const auto id = testing::submit_code(*http, *source);
  ASSERT_FALSE(id.empty());
  auto polled = testing::poll_done(*http, id, std::chrono::seconds(240));
  ASSERT_EQ(polled["state"], "done") << polled.dump();
  const auto& record = polled.at("record");
  std::string correctness = "(none)", sanitize = "(none)";
  for (const auto& stage : record.at("stages")) {
    const auto text = stage.value("status", "") + ": " + stage.value("message", "");
    if (stage.value("stage", "") == "correctness") correctness = text;
    if (stage.value("stage", "") == "sanitize") sanitize = text;
  }
  EXPECT_THAT(correctness, HasSubstr("within atol=")) << record.dump();
  EXPECT_THAT(sanitize, HasSubstr("racecheck (timed out"));
  EXPECT_THAT(sanitize, ::testing::StartsWith("not_checked"));
  // The stand-in racecheck takes 12 s: only the 1 s deadline, not the default 15 s, stops it.
  auto calls = util::read_file(log);
  ASSERT_TRUE(calls.has_value()) << "the worker was never asked";
  EXPECT_THAT(*calls, HasSubstr("judge "));
  EXPECT_EQ(serve.terminate(), 0);
}

}  // namespace
}  // namespace ptxbench::serve
