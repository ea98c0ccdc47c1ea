// `ptxbench eval`, running the built executable on the test candidates (real nvcc).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::cli {
namespace {
using ::testing::HasSubstr;

util::ProcessResult ptxbench(std::vector<std::string> args) {
  args.insert(args.begin(), PTXBENCH_CLI_PATH);
  util::SystemProcessRunner runner;
  return runner.run({.argv = std::move(args), .timeout = std::chrono::minutes(5)});
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
  EXPECT_TRUE(
      std::filesystem::exists(artifacts.path() / "000-hopper_wgmma_tma.cu" / "candidate.so"));
  EXPECT_TRUE(std::filesystem::exists(artifacts.path() / "001-syntax_error.cu" / "candidate.cu"));
}

// Several tasks (a comma list and a glob, repeated --task): every (task, file) pair, a JSON
// array in the order the tasks were named (a glob's matches in suite order), each task once.
TEST(CliEval, SeveralTasksGiveOneEvaluationPerTaskAndFile) {
  auto r = ptxbench({"eval", candidate("syntax_error.cu"), "--task",
                     "gemm_n7168_k5120,gemm_n5120_k5120", "--task", "gemm_n512*", "--arch",
                     "hopper", "--no-gpu", "--json", "--time-workloads", "M8192,M8828"});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  auto json = nlohmann::json::parse(r.stdout_text);
  ASSERT_TRUE(json.is_array());
  std::vector<std::string> tasks;
  for (const auto& e : json) {
    tasks.push_back(e.at("task"));
    EXPECT_EQ(e.at("verdict"), "COMPILE_ERROR");
  }
  EXPECT_EQ(tasks, (std::vector<std::string>{"gemm_n7168_k5120", "gemm_n5120_k5120",
                                             "gemm_n5120_k2048", "gemm_n5120_k17408"}));
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
