// A live process: lines both ways, a read bounded by its timeout, a kill, no child left behind.
#include "ptxbench/util/live_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

namespace ptxbench::util {
namespace {

std::unique_ptr<LiveProcess> start(std::vector<std::string> argv) {
  SystemProcessRunner runner;
  auto started = runner.start(ProcessSpec{.argv = std::move(argv)});
  EXPECT_TRUE(started.has_value()) << (started ? "" : started.error().message);
  return started ? std::move(*started) : nullptr;
}

TEST(LiveProcess, LinesGoBothWaysUntilStdinCloses) {
  auto cat = start({"cat"});
  ASSERT_NE(cat, nullptr);
  ASSERT_TRUE(cat->write_line("first"));
  EXPECT_EQ(cat->read_line(std::chrono::seconds(5)), "first");
  ASSERT_TRUE(cat->write_line("second"));
  EXPECT_EQ(cat->read_line(std::chrono::seconds(5)), "second");
  const ProcessResult ended = cat->finish(std::chrono::seconds(5));
  EXPECT_TRUE(ended.succeeded()) << ended.describe_end();
}

TEST(LiveProcess, AReadStopsAtItsTimeoutAndTheProcessCanBeKilled) {
  auto silent = start({"sleep", "30"});
  ASSERT_NE(silent, nullptr);
  const auto begin = std::chrono::steady_clock::now();
  EXPECT_EQ(silent->read_line(std::chrono::milliseconds(300)), std::nullopt);
  EXPECT_TRUE(silent->timed_out());
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(5));
  const pid_t pid = silent->pid();
  silent->kill();
  const ProcessResult ended = silent->finish(std::chrono::seconds(5));
  EXPECT_FALSE(ended.succeeded());
  EXPECT_NE(::kill(pid, 0), 0);  // gone and reaped
}

TEST(LiveProcess, ItsEndIsSeenAndStderrIsKept) {
  auto failing = start({"sh", "-c", "echo out; echo oops >&2; exit 3"});
  ASSERT_NE(failing, nullptr);
  EXPECT_EQ(failing->read_line(std::chrono::seconds(5)), "out");
  EXPECT_EQ(failing->read_line(std::chrono::seconds(5)), std::nullopt);
  EXPECT_FALSE(failing->timed_out());
  const ProcessResult ended = failing->finish(std::chrono::seconds(5));
  EXPECT_EQ(ended.exit_code, 3);
  EXPECT_NE(ended.stderr_text.find("oops"), std::string::npos);
}

TEST(LiveProcess, DestroyingItKillsTheGroup) {
  pid_t pid = 0;
  {
    auto sleeper = start({"sh", "-c", "sleep 30 & sleep 30"});
    ASSERT_NE(sleeper, nullptr);
    pid = sleeper->pid();
  }
  // No process of its group is left (the killed children are reaped by init: allow a moment).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (::kill(-pid, 0) == 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_NE(::kill(-pid, 0), 0);
}

TEST(LiveProcess, AProgramThatDoesNotExistDoesNotStart) {
  SystemProcessRunner runner;
  auto started = runner.start(ProcessSpec{.argv = {"/nonexistent/program"}});
  ASSERT_FALSE(started.has_value());
  EXPECT_NE(started.error().message.find("/nonexistent/program"), std::string::npos);
}

}  // namespace
}  // namespace ptxbench::util
