// `ptxbench run` killed with SIGKILL in the middle of a compile: the compiler's whole process
// group dies with it, and the next ptxbench process removes the temporary folder it left.
// A stand-in `nvcc` first on PATH records its pid and that of a child, then sleeps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::cli {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kFakeNvcc = R"(#!/bin/sh
case "$1" in --version) echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0;; esac
sleep 300 &
echo "$$ $!" > "$PTXBENCH_TEST_PIDS.tmp" && mv "$PTXBENCH_TEST_PIDS.tmp" "$PTXBENCH_TEST_PIDS"
wait
)";

// Gone, or a zombie nobody has reaped yet: either way it runs no more.
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  if (text.empty()) return false;
  const auto state = text.find(") ");
  return state != std::string::npos && text[state + 2] != 'Z';
}

template <class Predicate>
bool wait_for(Predicate done, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

std::vector<fs::path> eval_dirs(const fs::path& tmp) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(tmp)) {
    if (entry.path().filename().string().starts_with("ptxbench-eval-")) out.push_back(entry.path());
  }
  return out;
}

TEST(CliRunKill, AKilledRunLeavesNoCompilerRunningAndItsTempFolderIsCleaned) {
  util::TempDir dir;
  const fs::path bin = dir.path() / "bin", tmp = dir.path() / "tmp", pids = dir.path() / "pids";
  fs::create_directories(tmp);
  util::write_file_atomic(bin / "nvcc", kFakeNvcc);
  fs::permissions(bin / "nvcc", fs::perms::owner_all);
  util::write_file_atomic(dir.path() / "reply.md", "```cuda\n__global__ void k() {}\n```\n");
  const std::string path = bin.string() + ":" + std::getenv("PATH");
  std::vector<std::string> args{PTXBENCH_CLI_PATH, "run", "--model", "m", "--provider", "replay",
                                "--replay", (dir.path() / "reply.md").string(), "--tasks",
                                "gemm_n7168_k5120", "--no-gpu",
                                // the stand-in nvcc is in an owner-only folder, which the
                                // sandbox's unprivileged user may not execute
                                "--sandbox", "off", "--out", (dir.path() / "run").string()};

  const pid_t run = ::fork();
  ASSERT_GE(run, 0);
  if (run == 0) {
    ::setenv("PATH", path.c_str(), 1);
    ::setenv("TMPDIR", tmp.c_str(), 1);
    ::setenv("PTXBENCH_TEST_PIDS", pids.c_str(), 1);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ASSERT_TRUE(wait_for([&] { return fs::exists(pids); }, 120s)) << "the fake nvcc never ran";
  pid_t nvcc = 0, child = 0;
  std::ifstream(pids) >> nvcc >> child;
  ASSERT_GT(nvcc, 0);
  ASSERT_GT(child, 0);
  EXPECT_TRUE(running(nvcc));
  ASSERT_EQ(eval_dirs(tmp).size(), 1u);

  ::kill(run, SIGKILL);
  ::waitpid(run, nullptr, 0);
  EXPECT_TRUE(wait_for([&] { return !running(nvcc) && !running(child); }, 10s))
      << "nvcc (" << nvcc << ") or its child (" << child << ") outlived the killed run";
  EXPECT_EQ(eval_dirs(tmp).size(), 1u);  // left behind by the killed process

  // The next run sweeps it at its start (this one has nothing to compile).
  util::write_file_atomic(dir.path() / "no-code.md", "no code");
  util::SystemProcessRunner runner;
  auto again =
      runner.run({.argv = {PTXBENCH_CLI_PATH, "run", "--model", "m", "--provider", "replay",
                           "--replay", (dir.path() / "no-code.md").string(), "--tasks",
                           "gemm_n7168_k5120", "--no-gpu", "--out", (dir.path() / "run2").string()},
                  .timeout = std::chrono::seconds(120),
                  .env = {{"TMPDIR", tmp.string()}}});
  EXPECT_EQ(again.exit_code, 0) << again.stderr_text;
  EXPECT_TRUE(eval_dirs(tmp).empty()) << "the dead run's temp folder is still there";
}

}  // namespace
}  // namespace ptxbench::cli
