// Real attacks, run by a native stand-in for a hostile candidate (data/hostile_program.cpp)
// through the same sandboxed runner the worker uses. For each: how the process must end, and
// checks on the host afterwards (the judge — this test process — alive, nothing written outside
// the scratch folder, no process left, no secret seen, the next program runs normally).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "ptxbench/sandbox/sandboxed_runner.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::sandbox {
namespace {

namespace fs = std::filesystem;
constexpr const char* kSecret = "sk-ptxbench-fake-api-key-0123456789";

// Processes on the host whose command line names the hostile program.
int hostile_processes_alive() {
  int alive = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    std::ifstream cmdline(entry.path() / "cmdline");
    std::string text((std::istreambuf_iterator<char>(cmdline)), {});
    if (text.find("sandbox_hostile_program") != std::string::npos) ++alive;
  }
  return alive;
}

class HostileCandidate : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ::setenv("PTXBENCH_FAKE_API_KEY", kSecret, 1); }

  void SetUp() override {
    Policy policy = worker_policy(Mode::kStrict);
    policy.gpu_devices = false;
    policy.limits.processes = 256;
    policy.limits.scratch_bytes = 64ull << 20;
    policy.limits.data_bytes = 1ull << 30;
    policy.read_only_paths.push_back(fs::path(PTXBENCH_HOSTILE_PROGRAM).parent_path());
    runner_ = std::make_unique<SandboxedProcessRunner>(
        std::make_shared<util::SystemProcessRunner>(), std::move(policy));
    if (!complete(runner_->support().usable))
      GTEST_SKIP() << "this machine cannot sandbox fully: " << runner_->description();
    for (const char* path : {"/tmp/ptxbench_pwned", "/var/tmp/ptxbench_pwned"}) fs::remove(path);
  }

  void TearDown() override {
    if (IsSkipped()) return;
    // The host after every attack.
    EXPECT_FALSE(fs::exists("/tmp/ptxbench_pwned"));
    EXPECT_FALSE(fs::exists("/var/tmp/ptxbench_pwned"));
    EXPECT_FALSE(fs::exists("/root/.ptxbench_pwned"));
    EXPECT_FALSE(fs::exists("/tmp/fill0"));
    EXPECT_EQ(hostile_processes_alive(), 0);
    auto next = attack("honest");
    EXPECT_TRUE(next.succeeded()) << next.describe_end() << next.stderr_text;
    EXPECT_EQ(next.stdout_text, "ok\n");
  }

  util::ProcessResult attack(const std::string& mode, int port = 0) {
    util::ProcessSpec spec{
        .argv = {PTXBENCH_HOSTILE_PROGRAM, mode, std::to_string(::getpid()), std::to_string(port)},
        .timeout = std::chrono::seconds(20)};
    auto result = runner_->run(spec);
    EXPECT_TRUE(result.started) << result.spawn_error;
    EXPECT_EQ(result.stdout_text.find("ESCAPED"), std::string::npos) << result.stdout_text;
    EXPECT_EQ(result.stdout_text.find(kSecret), std::string::npos);
    return result;
  }

  std::unique_ptr<SandboxedProcessRunner> runner_;
};

TEST_F(HostileCandidate, DescribesItselfAsFull) {
  EXPECT_EQ(runner_->description(), "full");
}

TEST_F(HostileCandidate, KillingTheParentOrTheJudgeFails) {
  auto r = attack("kill-parent");
  EXPECT_TRUE(r.succeeded()) << r.describe_end() << r.stderr_text;
  EXPECT_NE(r.stdout_text.find("blocked"), std::string::npos);
}

TEST_F(HostileCandidate, KillMinusOneAndZeroReachOnlyTheSandbox) {
  auto r = attack("kill-all");
  // kill(0) ends the program itself: a failing verdict (killed), the judge untouched.
  EXPECT_FALSE(r.succeeded());
}

TEST_F(HostileCandidate, ASetsidGrandchildDoesNotOutliveTheRun) {
  auto r = attack("outlive");
  EXPECT_TRUE(r.succeeded()) << r.describe_end();
  EXPECT_LT(r.wall.count(), 15000);  // the spinner did not hold the run open
}

TEST_F(HostileCandidate, WritesOutsideScratchAreRefused) {
  auto r = attack("write-outside");
  EXPECT_TRUE(r.succeeded()) << r.stdout_text;
}

TEST_F(HostileCandidate, SecretsAndTheJudgesMemoryAreOutOfReach) {
  auto r = attack("read-secrets");
  EXPECT_EQ(r.stdout_text.find("judge mem opened"), std::string::npos);
  EXPECT_EQ(r.stdout_text.find("PTXBENCH_FAKE_API_KEY"), std::string::npos);
}

TEST_F(HostileCandidate, PtraceIsRefused) {
  auto r = attack("ptrace");
  EXPECT_TRUE(r.succeeded()) << r.stdout_text;
}

// A listening TCP socket on the judge's loopback: what a candidate must not reach.
struct LoopbackListener {
  int fd = -1;
  int port = 0;
  LoopbackListener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 4) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
      return;
    port = ntohs(addr.sin_port);
  }
  ~LoopbackListener() {
    if (fd >= 0) ::close(fd);
  }
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;
};

TEST_F(HostileCandidate, NoNetworkSocketToTheJudge) {
  const LoopbackListener listener;
  ASSERT_GT(listener.port, 0);
  auto r = attack("socket", listener.port);
  EXPECT_TRUE(r.succeeded()) << r.stdout_text;
  EXPECT_NE(r.stdout_text.find("refused"), std::string::npos) << r.stdout_text;
}

// ncu talks to the process it profiles over TCP on loopback, so its run may open IP sockets:
// they reach only the sandbox's own loopback (its network namespace), never the judge's port.
TEST_F(HostileCandidate, IpSocketsForNcuReachOnlyTheSandboxesOwnLoopback) {
  const LoopbackListener listener;
  ASSERT_GT(listener.port, 0);
  util::ProcessSpec judge_port{.argv = {PTXBENCH_HOSTILE_PROGRAM, "socket",
                                        std::to_string(::getpid()), std::to_string(listener.port)},
                               .timeout = std::chrono::seconds(20),
                               .loopback_ip_sockets = true};
  auto r = runner_->run(judge_port);
  EXPECT_EQ(r.stdout_text.find("ESCAPED"), std::string::npos) << r.stdout_text;
  EXPECT_NE(r.stdout_text.find("tcp socket made"), std::string::npos) << r.stdout_text;
  EXPECT_NE(r.stdout_text.find("refused"), std::string::npos) << r.stdout_text;

  util::ProcessSpec own_loopback{
      .argv = {"/usr/bin/python3", "-c",
               "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1); "
               "c = socket.create_connection(s.getsockname(), timeout=5); print('connected')"},
      .timeout = std::chrono::seconds(20),
      .loopback_ip_sockets = true};
  auto own = runner_->run(own_loopback);
  EXPECT_TRUE(own.succeeded()) << own.describe_end() << own.stderr_text;
  EXPECT_EQ(own.stdout_text, "connected\n");
  own_loopback.loopback_ip_sockets = false;
  EXPECT_FALSE(runner_->run(own_loopback).succeeded());  // the default stays AF_UNIX only
}

TEST_F(HostileCandidate, AForkBombHitsTheProcessLimit) {
  auto r = attack("fork-bomb");
  EXPECT_TRUE(r.succeeded()) << r.stdout_text;
  EXPECT_NE(r.stdout_text.find("forked"), std::string::npos);
}

TEST_F(HostileCandidate, FillingTheDiskStopsAtTheScratchSize) {
  auto r = attack("fill-disk");
  EXPECT_TRUE(r.succeeded()) << r.stdout_text;
}

TEST_F(HostileCandidate, HostMemoryIsLimited) {
  auto r = attack("eat-memory");
  EXPECT_TRUE(r.succeeded()) << r.stdout_text;
}

TEST_F(HostileCandidate, SeesADeclaredArtefactFolderReadOnly) {
  util::TempDir artefacts("ptxbench-visible-");  // mkdtemp: mode 0700
  util::write_file_atomic(artefacts.path() / "candidate.so", "not really a library");
  runner_->show_read_only(artefacts.path());
  auto r = runner_->run({.argv = {"cat", (artefacts.path() / "candidate.so").string()}});
  EXPECT_TRUE(r.succeeded()) << r.describe_end() << r.stderr_text;
  EXPECT_EQ(r.stdout_text, "not really a library");
  auto w = runner_->run({.argv = {"touch", (artefacts.path() / "written").string()}});
  EXPECT_FALSE(w.succeeded());
  EXPECT_FALSE(fs::exists(artefacts.path() / "written"));
}

TEST(SandboxStrictMode, RefusesToRunWithoutBwrap) {
  ::setenv("PTXBENCH_BWRAP", "/nonexistent/bwrap", 1);
  SandboxedProcessRunner runner(std::make_shared<util::SystemProcessRunner>(),
                                worker_policy(Mode::kStrict));
  auto r = runner.run({.argv = {"true"}});
  ::unsetenv("PTXBENCH_BWRAP");
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.spawn_error.find(kNotSandboxedError), std::string::npos) << r.spawn_error;
  EXPECT_NE(runner.description().find("partial: no bwrap"), std::string::npos);
}

TEST(SandboxBestEffort, RunsWithoutBwrapButDropsTheEnvironment) {
  ::setenv("PTXBENCH_BWRAP", "/nonexistent/bwrap", 1);
  ::setenv("PTXBENCH_FAKE_API_KEY", kSecret, 1);
  SandboxedProcessRunner runner(std::make_shared<util::SystemProcessRunner>(),
                                worker_policy(Mode::kBestEffort));
  auto r = runner.run({.argv = {"/bin/sh", "-c", "env; echo done"}});
  ::unsetenv("PTXBENCH_BWRAP");
  EXPECT_TRUE(r.succeeded()) << r.describe_end() << r.stderr_text;
  EXPECT_EQ(r.stdout_text.find(kSecret), std::string::npos);
  EXPECT_NE(r.stdout_text.find("done"), std::string::npos);
  EXPECT_EQ(runner.description().rfind("partial: ", 0), 0u);
}

TEST(SandboxOffMode, IsAPlainChild) {
  SandboxedProcessRunner runner(std::make_shared<util::SystemProcessRunner>(),
                                worker_policy(Mode::kOff));
  EXPECT_EQ(runner.description(), "off");
  EXPECT_TRUE(runner.run({.argv = {"true"}}).succeeded());
}

}  // namespace
}  // namespace ptxbench::sandbox
