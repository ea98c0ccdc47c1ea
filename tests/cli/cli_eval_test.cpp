// `ptxbench eval`, running the built executable on the test candidates (real nvcc).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"
#include "run_cli.hpp"

namespace ptxbench::cli {
namespace {
using ::testing::HasSubstr;

util::ProcessResult ptxbench(std::vector<std::string> args) {
  return testing::run_cli(std::move(args), std::chrono::minutes(5));
}

std::string candidate(const std::string& name) {
  return std::string(PTXBENCH_CANDIDATES_DIR) + "/" + name;
}

TEST(CliEval, ReplyWithoutCodeIsNoCodeInJson) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "reply.md", "I am not sure how to use wgmma here.\n");
  auto r = ptxbench({"eval", (dir.path() / "reply.md").string(), "--task", "gemm_n7168_k5120",
                     "--arch", "hopper", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  auto json = nlohmann::json::parse(r.stdout_text);
  ASSERT_TRUE(json.is_object());
  EXPECT_EQ(json.at("verdict"), "NO_CODE");
  EXPECT_EQ(json.at("task"), "gemm_n7168_k5120");
  EXPECT_EQ(json.at("stages").size(), 8u);
}

// A glob in the shell can expand to files named like options (`--out=x.md`, `-h.md`): after
// `--` they are files, evaluated as replies, and no option is taken from them.
TEST(CliEval, FilesNamedLikeOptionsAfterTheDoubleDash) {
  util::TempDir dir;
  for (const char* name : {"--out=x.md", "-h.md"})
    util::write_file_atomic(dir.path() / name, "No code in this reply.\n");
  auto r = testing::run_cli({"eval", "--task", "gemm_n7168_k5120", "--arch", "hopper", "--json",
                             "--no-gpu", "--", "--out=x.md", "-h.md"},
                            std::chrono::minutes(5), {}, dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;  // NO_CODE twice
  std::istringstream lines(r.stdout_text);
  std::vector<std::string> sources;
  for (std::string line; std::getline(lines, line);) {
    auto record = nlohmann::json::parse(line);
    EXPECT_EQ(record.at("verdict"), "NO_CODE");
    sources.push_back(record.at("source_name"));
  }
  std::sort(sources.begin(), sources.end());
  EXPECT_EQ(sources, (std::vector<std::string>{"--out=x.md", "-h.md"})) << r.stdout_text;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "x.md")) << "--out=x.md was taken as --out";
}

TEST(CliEval, UnknownTaskArchOrFileKindAreUsageErrors) {
  auto task =
      ptxbench({"eval", candidate("syntax_error.cu"), "--task", "gemm_n7168", "--arch", "hopper"});
  EXPECT_EQ(task.exit_code, 2);
  EXPECT_THAT(task.stderr_text, HasSubstr("did you mean gemm_n7168_k5120?"));
  auto arch = ptxbench(
      {"eval", candidate("syntax_error.cu"), "--task", "gemm_n7168_k5120", "--arch", "ampere"});
  EXPECT_EQ(arch.exit_code, 2);
  auto kind = ptxbench({"eval", "kernel.py", "--task", "gemm_n7168_k5120", "--arch", "hopper"});
  EXPECT_EQ(kind.exit_code, 2);
  EXPECT_THAT(kind.stderr_text, HasSubstr("kernel.py"));
  auto missing =
      ptxbench({"eval", "/nonexistent/k.cu", "--task", "gemm_n7168_k5120", "--arch", "hopper"});
  EXPECT_EQ(missing.exit_code, 2);
}

// Two files at once: a statically verified kernel (NOT_RUN without a GPU: exit 0, never
// "passed") and a syntax error (exit 1 for the batch), with artifacts kept.
TEST(CliEval, SeveralFilesSummaryAndArtifacts) {
  util::TempDir artifacts;
  auto r = ptxbench({"eval", candidate("hopper_wgmma_tma.cu"), candidate("syntax_error.cu"),
                     "--task", "gemm_n7168_k5120", "--arch", "hopper", "--no-gpu", "--jobs", "2",
                     "--keep-artifacts", artifacts.path().string()});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("NOT_RUN"));
  EXPECT_THAT(r.stdout_text, HasSubstr("GMMA"));
  EXPECT_THAT(r.stdout_text, HasSubstr("COMPILE_ERROR"));
  EXPECT_THAT(r.stdout_text, HasSubstr("error: expected a \";\""));
  EXPECT_THAT(r.stdout_text, ::testing::Not(HasSubstr("PASSED")));
  // Each candidate's folder is "<NNN>-<file name>"; with two compiles at once the numbers follow
  // the order the compiles started in, so the folders are found by their file names.
  auto kept = [&](const std::string& file_name) {
    for (const auto& entry : std::filesystem::directory_iterator(artifacts.path())) {
      const std::string name = entry.path().filename().string();
      if (name.size() > file_name.size() && name.ends_with("-" + file_name)) return entry.path();
    }
    return std::filesystem::path();
  };
  EXPECT_TRUE(std::filesystem::exists(kept("hopper_wgmma_tma.cu") / "candidate.so"));
  EXPECT_TRUE(std::filesystem::exists(kept("syntax_error.cu") / "candidate.cu"));
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> records;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) records.push_back(nlohmann::json::parse(line));
  }
  return records;
}

// Several tasks (a comma list and a glob, repeated --task): every (task, file) pair, one JSON
// record per line as each verdict is known (on stdout and in --out), each task once.
TEST(CliEval, SeveralTasksGiveOneEvaluationPerTaskAndFile) {
  util::TempDir dir;
  const auto out = dir.path() / "verdicts.jsonl";
  auto r =
      ptxbench({"eval", candidate("syntax_error.cu"), "--task", "gemm_n7168_k5120,gemm_n5120_k5120",
                "--task", "gemm_n512*", "--arch", "hopper", "--no-gpu", "--json",
                "--time-workloads", "M8192,M8828", "--out", out.string()});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  EXPECT_THAT(r.stderr_text, HasSubstr("4 of 4 judged"));
  for (const auto& records : {json_lines(r.stdout_text), json_lines(*util::read_file(out))}) {
    std::vector<std::string> tasks;
    for (const auto& e : records) {
      tasks.push_back(e.at("task"));
      EXPECT_EQ(e.at("verdict"), "COMPILE_ERROR");
    }
    std::sort(tasks.begin(), tasks.end());
    EXPECT_EQ(tasks, (std::vector<std::string>{"gemm_n5120_k17408", "gemm_n5120_k2048",
                                               "gemm_n5120_k5120", "gemm_n7168_k5120"}));
  }
}

// True while `pid` names a live process (a zombie counts as ended).
bool alive(pid_t pid) {
  auto stat = util::read_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  const auto close = stat->rfind(')');
  return close != std::string::npos && close + 2 < stat->size() && (*stat)[close + 2] != 'Z';
}

// A folder with a stand-in `nvcc` that answers --version and otherwise runs `body`. The tests
// that use it run with --sandbox off: the stand-in lives in the test's owner-only folder, which
// the sandbox's unprivileged user may not execute (the sandbox's own limits on nvcc are
// tests/sandbox/compile_sandbox_test.cpp's).
std::filesystem::path fake_nvcc(const std::filesystem::path& dir, const std::string& body) {
  const auto bin = dir / "bin";
  std::filesystem::create_directories(bin);
  util::write_file_atomic(bin / "nvcc",
                          "#!/bin/sh\n"
                          "if [ \"$1\" = --version ]; then echo 'release 13.0'; exit 0; fi\n" +
                              body);
  std::filesystem::permissions(bin / "nvcc", std::filesystem::perms::owner_all);
  return bin;
}

// --compile-timeout bounds nvcc (it was parsed and ignored).
TEST(CliEval, CompileTimeoutStopsASlowNvcc) {
  util::TempDir dir;
  const auto bin = fake_nvcc(dir.path(), "sleep 30\n");
  util::write_file_atomic(dir.path() / "k.cu", "int x;\n");
  util::SystemProcessRunner runner;
  auto r = runner.run({.argv = {PTXBENCH_CLI_PATH, "eval", (dir.path() / "k.cu").string(), "--task",
                                "gemm_n7168_k5120", "--arch", "hopper", "--no-gpu", "--json",
                                "--compile-timeout", "1", "--sandbox", "off"},
                       .timeout = std::chrono::seconds(25),
                       .env = {{"PATH", bin.string() + ":/usr/bin:/bin"}}});
  EXPECT_EQ(r.exit_code, 1) << r.describe_end() << r.stderr_text;
  EXPECT_LT(r.wall, std::chrono::seconds(15));
  auto records = json_lines(r.stdout_text);
  ASSERT_EQ(records.size(), 1u) << r.stdout_text;
  EXPECT_EQ(records[0].at("verdict"), "COMPILE_ERROR");
  EXPECT_THAT(records[0].at("message").get<std::string>(), HasSubstr("timed out after 1 s"));
}

// SIGTERM while nvcc (here a stand-in that starts a child of its own and sleeps) is running:
// ptxbench ends the whole group, removes its temporary folder and exits 128 + 15.
TEST(CliEval, SigtermEndsEveryChildAndRemovesTemporaryFolders) {
  util::TempDir dir;
  const auto tmp = dir.path() / "tmp";
  std::filesystem::create_directories(tmp);
  const auto pids = dir.path() / "pids";
  const auto bin =
      // nvcc's parent is the keeper of its process group; ptxbench is the keeper's parent.
      fake_nvcc(dir.path(),
                "sleep 300 &\nread -r _ _ _ ptxbench _ </proc/$PPID/stat\n"
                "echo $ptxbench $$ $! > " +
                    pids.string() + ".part\nmv " + pids.string() + ".part " + pids.string() +
                    "\nwait\n");
  util::write_file_atomic(dir.path() / "k.cu", "int x;\n");
  util::ProcessResult result;
  std::thread evaluating([&] {
    util::SystemProcessRunner runner;
    result = runner.run(
        {.argv = {PTXBENCH_CLI_PATH, "eval", (dir.path() / "k.cu").string(), "--task",
                  "gemm_n7168_k5120", "--arch", "hopper", "--no-gpu", "--sandbox", "off"},
         .timeout = std::chrono::seconds(60),
         .env = {{"PATH", bin.string() + ":/usr/bin:/bin"}, {"TMPDIR", tmp.string()}}});
  });
  for (int i = 0; i < 300 && !std::filesystem::exists(pids); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  pid_t ptxbench_pid = 0, nvcc_pid = 0, sleep_pid = 0;
  if (auto text = util::read_file(pids)) {
    std::istringstream(*text) >> ptxbench_pid >> nvcc_pid >> sleep_pid;
  }
  if (ptxbench_pid > 0) ::kill(ptxbench_pid, SIGTERM);
  evaluating.join();
  ASSERT_GT(sleep_pid, 0) << "the stand-in nvcc never ran: " << result.stderr_text;
  EXPECT_EQ(result.exit_code, 128 + SIGTERM) << result.describe_end() << result.stderr_text;
  EXPECT_LT(result.wall, std::chrono::seconds(20));
  EXPECT_FALSE(alive(nvcc_pid));
  EXPECT_FALSE(alive(sleep_pid));
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "a temporary folder was left behind";
}

TEST(CliEval, TaskGlobsAndTimedWorkloadsThatMatchNothingAreUsageErrors) {
  auto glob =
      ptxbench({"eval", candidate("syntax_error.cu"), "--task", "conv_*", "--arch", "hopper"});
  EXPECT_EQ(glob.exit_code, 2);
  EXPECT_THAT(glob.stderr_text, HasSubstr("no task matches 'conv_*'"));
  auto workload = ptxbench({"eval", candidate("syntax_error.cu"), "--task", "gemm_*", "--arch",
                            "hopper", "--time-workloads", "M8192,M882"});
  EXPECT_EQ(workload.exit_code, 2);
  EXPECT_THAT(workload.stderr_text, HasSubstr("did you mean M8828?"));
  auto empty = ptxbench({"eval", candidate("syntax_error.cu"), "--task", "gemm_n7168_k5120",
                         "--arch", "hopper", "--time-workloads", ","});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_THAT(empty.stderr_text, HasSubstr("--time-workloads"));
}

TEST(CliEval, TheUnseenPolicyAndTheSeedAreChecked) {
  auto policy = ptxbench({"eval", candidate("syntax_error.cu"), "--task", "gemm_n7168_k5120",
                          "--arch", "hopper", "--unseen", "sometimes"});
  EXPECT_EQ(policy.exit_code, 2);
  EXPECT_THAT(policy.stderr_text, HasSubstr("--unseen sometimes: expected require, report or off"));
  auto seed = ptxbench({"eval", candidate("syntax_error.cu"), "--task", "gemm_n7168_k5120",
                        "--arch", "hopper", "--seed", "-3"});
  EXPECT_EQ(seed.exit_code, 2) << seed.stderr_text;
  auto word = ptxbench({"eval", candidate("syntax_error.cu"), "--task", "gemm_n7168_k5120",
                        "--arch", "hopper", "--seed", "many"});
  EXPECT_EQ(word.exit_code, 2) << word.stderr_text;
  auto fine = ptxbench({"eval", candidate("syntax_error.cu"), "--task", "gemm_n7168_k5120",
                        "--arch", "hopper", "--no-gpu", "--unseen", "report", "--seed", "42"});
  EXPECT_EQ(fine.exit_code, 1) << fine.stderr_text;  // COMPILE_ERROR, flags accepted
}

TEST(CliEval, StaticallyVerifiedKernelExitsZeroAsNotRun) {
  auto r = ptxbench({"eval", candidate("hopper_wgmma_tma.cu"), "--task", "gemm_n7168_k5120",
                     "--arch", "hopper", "--no-gpu", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  auto json = nlohmann::json::parse(r.stdout_text);
  EXPECT_EQ(json.at("verdict"), "NOT_RUN");
  EXPECT_EQ(json.at("schema_version"), 1);
  EXPECT_THAT(json.at("message").get<std::string>(), HasSubstr("GPU stages not run"));
}

}  // namespace
}  // namespace ptxbench::cli

namespace ptxbench::cli {
namespace {

// --compile-cache: the second evaluation of the same file reuses the first compile (nvcc not
// run, the record says so) and reaches the same verdict with the same kernels.
TEST(CliEval, TheCompileCacheServesAnIdenticalCandidate) {
  util::TempDir cache;
  auto eval_once = [&] {
    auto r = ptxbench({"eval", candidate("hopper_wgmma_tma.cu"), "--task", "gemm_n7168_k5120",
                       "--arch", "hopper", "--no-gpu", "--json", "--compile-cache",
                       (cache.path() / "compiles").string()});
    EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
    return nlohmann::json::parse(r.stdout_text);
  };
  const auto first = eval_once();
  const auto second = eval_once();
  EXPECT_EQ(first.at("compile").at("cached"), false);
  EXPECT_EQ(second.at("compile").at("cached"), true);
  EXPECT_EQ(second.at("verdict"), first.at("verdict"));
  EXPECT_EQ(second.at("kernels"), first.at("kernels"));
  EXPECT_EQ(second.at("compile").at("command"), first.at("compile").at("command"));
  EXPECT_LT(second.at("compile").at("seconds").get<double>(),
            first.at("compile").at("seconds").get<double>());
}

}  // namespace
}  // namespace ptxbench::cli
