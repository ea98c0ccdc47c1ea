// The Harbor task folder of a task: its files, the instruction carrying the prompt, the
// verifier naming the task and arch, and solve.sh only when a solution is shipped.
#include "ptxbench/harbor/harbor_task.hpp"

#include <gtest/gtest.h>

#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::harbor {
namespace {

const task::Task& gemm() {
  static const auto suite = task::load_suite(task::default_tasks_dir());
  return *task::find_task(*suite, "gemm_n7168_k5120");
}

TEST(HarborTask, HoldsInstructionStubVerifierAndConfig) {
  auto files = render_harbor_task(gemm(), {.context = prompt::ContextLevel::kIsa,
                                           .context_dir = prompt::default_context_dir()});
  ASSERT_TRUE(files.has_value()) << files.error().message;
  for (const char* path : {"task.toml", "instruction.md", "environment/Dockerfile",
                           "environment/workspace/kernel.cu", "tests/test.sh"})
    EXPECT_TRUE(files->contains(path)) << path;
  EXPECT_FALSE(files->contains("solution/solve.sh"));
  auto prompt = prompt::build_prompt(gemm(), arch::Arch::kHopper, prompt::ContextLevel::kIsa,
                                     prompt::default_context_dir());
  EXPECT_NE(files->at("instruction.md").content.find(prompt->task), std::string::npos);
  const auto& test = files->at("tests/test.sh");
  EXPECT_TRUE(test.executable);
  EXPECT_NE(test.content.find("--task gemm_n7168_k5120 --arch hopper --json"), std::string::npos);
  EXPECT_NE(files->at("task.toml").content.find("ptxbench_context = \"isa\""), std::string::npos);
  EXPECT_NE(files->at("environment/workspace/kernel.cu").content.find("#error"), std::string::npos);
  EXPECT_EQ(harbor_task_name(gemm(), arch::Arch::kBlackwell), "gemm_n7168_k5120-blackwell");
}

TEST(HarborTask, AShippedSolutionGetsSolveSh) {
  auto files = render_harbor_task(
      gemm(), {.context_dir = prompt::default_context_dir(), .solution = "// the solution"});
  ASSERT_TRUE(files.has_value());
  EXPECT_EQ(files->at("solution/kernel.cu").content, "// the solution");
  EXPECT_TRUE(files->at("solution/solve.sh").executable);
}

}  // namespace
}  // namespace ptxbench::harbor
