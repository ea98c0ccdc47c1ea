// `ptxbench serve` opens the same engine as every other command (eval/engine.hpp): an unusable
// strict sandbox is refused at start (tests/cli/cli_engine_test.cpp covers the message), and the
// engine's flags reach its evaluations: --compile-timeout bounds a stand-in nvcc, --gpus pins
// the stand-in GPU worker (tests/eval/worker/fake_worker.cpp logs the CUDA_VISIBLE_DEVICES of
// its `info` call).
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

}  // namespace
}  // namespace ptxbench::serve
