// `ptxbench tasks` and command-level behaviour, running the built executable.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ptxbench/util/process.hpp"
#include "run_cli.hpp"

namespace ptxbench::cli {
namespace {
using ::testing::HasSubstr;

util::ProcessResult ptxbench(std::vector<std::string> args) {
  return testing::run_cli(std::move(args), std::chrono::seconds(60));
}

int task_rows(const std::string& table) {
  int rows = 0;
  std::size_t at = 0;
  while ((at = table.find('\n', at)) != std::string::npos) {
    ++at;
    if (table.compare(at, 5, "gemm_") == 0 || table.compare(at, 4, "mha_") == 0) ++rows;
  }
  return rows;
}

TEST(CliTasks, ListsTheWholeSuite) {
  auto r = ptxbench({"tasks"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(task_rows(r.stdout_text), 37);
  EXPECT_THAT(r.stdout_text, HasSubstr("gemm_n7168_k5120 *"));
  EXPECT_THAT(r.stdout_text, HasSubstr("37 tasks"));
}

TEST(CliTasks, Filters) {
  auto bwd = ptxbench({"tasks", "--family", "mha_bwd"});
  ASSERT_EQ(bwd.exit_code, 0) << bwd.stderr_text;
  EXPECT_EQ(task_rows(bwd.stdout_text), 6);
  auto heldout = ptxbench({"tasks", "--split", "heldout"});
  ASSERT_EQ(heldout.exit_code, 0) << heldout.stderr_text;
  // 3 GEMM shapes, d96 and d256 fwd, d96 bwd, one FP8 GEMM shape, the batch-64 decode
  EXPECT_EQ(task_rows(heldout.stdout_text), 3 + 4 + 2 + 1 + 1);
  auto blackwell = ptxbench({"tasks", "--arch", "blackwell", "--family", "gemm"});
  ASSERT_EQ(blackwell.exit_code, 0) << blackwell.stderr_text;
  EXPECT_EQ(task_rows(blackwell.stdout_text), 17);
  EXPECT_THAT(blackwell.stdout_text, HasSubstr("blackwell: UTCMMA TMEM TMA"));
  EXPECT_THAT(blackwell.stdout_text, ::testing::Not(HasSubstr("hopper:")));
}

TEST(CliTasks, BadFiltersAreUsageErrors) {
  auto family = ptxbench({"tasks", "--family", "gem"});
  EXPECT_EQ(family.exit_code, 2);
  EXPECT_THAT(family.stderr_text, HasSubstr("no family 'gem' (did you mean gemm?)"));
  auto arch = ptxbench({"tasks", "--arch", "hoper"});
  EXPECT_EQ(arch.exit_code, 2);
  EXPECT_THAT(arch.stderr_text, HasSubstr("did you mean hopper?"));
  EXPECT_EQ(ptxbench({"tasks", "--split", "test"}).exit_code, 2);
}

TEST(CliTasks, ShowRendersTheTaskForAnArch) {
  auto r = ptxbench({"tasks", "show", "gemm_n7168_k5120", "--arch", "hopper"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("Task: gemm_n7168_k5120 (gemm)"));
  EXPECT_THAT(r.stdout_text, HasSubstr("void run(tvm::ffi::TensorView A, tvm::ffi::TensorView B, "
                                       "tvm::ffi::TensorView C);"));
  EXPECT_THAT(r.stdout_text, HasSubstr("GMMA: wgmma.mma_async"));
  EXPECT_THAT(r.stdout_text, HasSubstr("M=8192 (headline"));
}

TEST(CliTasks, UnknownTaskSuggestsTheClosest) {
  auto r = ptxbench({"tasks", "show", "gemm_n7168_k512"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text,
              HasSubstr("no task named 'gemm_n7168_k512' (did you mean gemm_n7168_k5120?)"));
}

TEST(CliCommands, UnknownCommandSuggestsTheClosest) {
  auto r = ptxbench({"taks"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("unknown command 'taks' (did you mean tasks?)"));
}

TEST(CliCommands, HelpAndUsageErrors) {
  auto help = ptxbench({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.stdout_text, HasSubstr("eval"));
  EXPECT_EQ(ptxbench({}).exit_code, 2);                // a command is required
  EXPECT_EQ(ptxbench({"eval", "x.cu"}).exit_code, 2);  // --task and --arch are required
}

}  // namespace
}  // namespace ptxbench::cli
