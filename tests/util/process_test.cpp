#include "ptxbench/util/process.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <memory>
#include <thread>

namespace ptxbench::util {
namespace {

using namespace std::chrono_literals;

ProcessResult run_sh(const std::string& script, ProcessSpec spec = {}) {
  spec.argv = {"/bin/sh", "-c", script};
  return SystemProcessRunner().run(spec);
}

TEST(ProcessRunner, CapturesStdoutStderrAndExitCode) {
  auto r = run_sh("echo out; echo err >&2; exit 3");
  ASSERT_TRUE(r.started);
  EXPECT_EQ(r.stdout_text, "out\n");
  EXPECT_EQ(r.stderr_text, "err\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.succeeded());
  EXPECT_EQ(r.describe_end(), "exit 3");
}

TEST(ProcessRunner, FeedsStdin) {
  ProcessSpec spec;
  spec.stdin_text = std::string(200000, 'x');  // larger than a pipe buffer
  auto r = run_sh("wc -c", spec);
  ASSERT_TRUE(r.succeeded()) << r.describe_end();
  EXPECT_EQ(std::stol(r.stdout_text), 200000);
}

TEST(ProcessRunner, StdinIsDevNullByDefault) {
  auto r = run_sh("cat");
  ASSERT_TRUE(r.succeeded());
  EXPECT_EQ(r.stdout_text, "");
}

TEST(ProcessRunner, KillsTheWholeGroupOnDeadline) {
  ProcessSpec spec;
  spec.timeout = 300ms;
  auto start = std::chrono::steady_clock::now();
  // The grandchild holds the output pipe open; it must die with the group.
  auto r = run_sh("sleep 30 & sleep 30", spec);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.succeeded());
  EXPECT_LT(elapsed, 5s);
}

// A caller that no longer needs a process (the evaluator, once the same code timed out beside
// it) stops it: the group dies within about a second, and the result says it was stopped.
TEST(ProcessRunner, StopEndsTheGroupAndSaysSo) {
  auto stop = std::make_shared<std::atomic<bool>>(false);
  ProcessSpec spec;
  spec.timeout = 60s;
  spec.stop = stop;
  std::thread stopper([stop] {
    std::this_thread::sleep_for(300ms);
    stop->store(true);
  });
  auto start = std::chrono::steady_clock::now();
  auto r = run_sh("sleep 30 & sleep 30", spec);
  auto elapsed = std::chrono::steady_clock::now() - start;
  stopper.join();
  EXPECT_TRUE(r.stopped);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.succeeded());
  EXPECT_LT(elapsed, 5s);
  EXPECT_NE(r.describe_end().find("stopped after"), std::string::npos) << r.describe_end();
}

// A held deadline waits while the caller's flag is set, and fires once it is cleared.
TEST(ProcessRunner, AHeldDeadlineWaitsUntilReleased) {
  auto hold = std::make_shared<std::atomic<bool>>(true);
  ProcessSpec spec;
  spec.timeout = 300ms;
  spec.hold_deadline = hold;
  auto finished = run_sh("sleep 1; echo done", spec);
  EXPECT_TRUE(finished.succeeded()) << finished.describe_end();
  EXPECT_EQ(finished.stdout_text, "done\n");

  std::thread release([hold] {
    std::this_thread::sleep_for(500ms);
    hold->store(false);
  });
  auto start = std::chrono::steady_clock::now();
  auto r = run_sh("sleep 30", spec);
  auto elapsed = std::chrono::steady_clock::now() - start;
  release.join();
  EXPECT_TRUE(r.timed_out) << r.describe_end();
  EXPECT_GE(elapsed, 450ms);
  EXPECT_LT(elapsed, 5s);
}

TEST(ProcessRunner, ReportsSignals) {
  auto r = run_sh("kill -SEGV $$");
  EXPECT_EQ(r.term_signal, SIGSEGV);
  EXPECT_NE(r.describe_end().find("signal"), std::string::npos);
}

TEST(ProcessRunner, CapsOutput) {
  ProcessSpec spec;
  spec.output_cap_bytes = 1000;
  auto r = run_sh("head -c 100000 /dev/zero", spec);
  EXPECT_TRUE(r.succeeded());
  EXPECT_EQ(r.stdout_text.size(), 1000u);
  EXPECT_TRUE(r.stdout_truncated);
}

TEST(ProcessRunner, MissingProgramIsAValue) {
  ProcessSpec spec;
  spec.argv = {"ptxbench-no-such-program"};
  auto r = SystemProcessRunner().run(spec);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.spawn_error.find("not found"), std::string::npos);
}

TEST(ProcessRunner, EnvironmentAndWorkingDir) {
  ProcessSpec spec;
  spec.env = {{"PTXBENCH_TEST_VALUE", "42"}};
  spec.working_dir = "/tmp";
  auto r = run_sh("echo $PTXBENCH_TEST_VALUE; pwd", spec);
  EXPECT_EQ(r.stdout_text, "42\n/tmp\n");
}

TEST(ProcessRunner, AddressSpaceLimitApplies) {
  ProcessSpec spec;
  spec.address_space_limit_bytes = 64ull << 20;
  // Allocating 256 MiB under a 64 MiB limit fails inside the child.
  spec.argv = {"python3", "-c", "b = bytearray(256 * 1024 * 1024)"};
  auto r = SystemProcessRunner().run(spec);
  if (!r.started) GTEST_SKIP() << "python3 not available: " << r.spawn_error;
  EXPECT_FALSE(r.succeeded());
}

}  // namespace
}  // namespace ptxbench::util
