#include "ptxbench/agent/solution_catalog.hpp"

#include <gtest/gtest.h>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::agent {
namespace {

TEST(SolutionHeader, ParsesTheFirstLine) {
  std::string problem;
  auto header = parse_solution_header(
      "// ptxbench: task=gemm_n7168_k5120 arch=hopper expect=INCORRECT_NUMERICAL", problem);
  ASSERT_TRUE(header);
  EXPECT_EQ(header->task, "gemm_n7168_k5120");
  EXPECT_EQ(header->arch, arch::Arch::kHopper);
  EXPECT_EQ(header->expect, eval::Verdict::kIncorrectNumerical);
  EXPECT_FALSE(parse_solution_header("// a comment", problem));
  EXPECT_TRUE(problem.empty());
  EXPECT_FALSE(parse_solution_header("// ptxbench: task=t arch=volta expect=PASSED", problem));
  EXPECT_NE(problem.find("volta"), std::string::npos);
  EXPECT_FALSE(parse_solution_header("// ptxbench: task=t arch=hopper", problem));
  EXPECT_NE(problem.find("expect"), std::string::npos);
}

TEST(SolutionCatalog, FindsHeadedFilesAnywhere) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "hopper" / "good.cu",
                          "// ptxbench: task=gemm_n7168_k5120 arch=hopper expect=PASSED\nk\n");
  util::write_file_atomic(
      dir.path() / "broken" / "bad.cu",
      "// ptxbench: task=gemm_n7168_k5120 arch=hopper expect=COMPILE_ERROR\nk\n");
  util::write_file_atomic(dir.path() / "broken" / "typo.cu",
                          "// ptxbench: task=x arch=hopper expect=FINE\n");
  util::write_file_atomic(dir.path() / "bench" / "harness.cu", "// a harness\n");
  util::write_file_atomic(dir.path() / "ptx" / "wrappers.cuh",
                          "// ptxbench: task=x arch=hopper expect=PASSED\n");
  SolutionScan scan = scan_solutions(dir.path());
  EXPECT_EQ(scan.files_seen, 4u);
  ASSERT_EQ(scan.files.size(), 2u);
  EXPECT_EQ(scan.files[0].group, "broken");
  ASSERT_EQ(scan.problems.size(), 1u);
  EXPECT_NE(scan.problems[0].find("typo.cu"), std::string::npos);
  EXPECT_FALSE(scan_solutions(dir.path() / "absent").problems.empty());
}

}  // namespace
}  // namespace ptxbench::agent
