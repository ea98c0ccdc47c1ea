// The two-kernel candidate of ncu_fallback_eval_test carries the honest base exactly as
// honest_gemm.inc has it, and launches the prologue before the GEMM (the probe must see the
// prologue, so only ncu can see the GEMM). No GPU needed.
#include <gtest/gtest.h>

#include "control_files.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::controls_test {
namespace {

TEST(NcuFallbackCandidate, CarriesTheHonestBaseAndLaunchesThePrologueFirst) {
  auto base = util::read_file(controls_dir() / "honest_gemm.inc");
  ASSERT_TRUE(base.has_value()) << base.error().message;
  auto candidate =
      util::read_file(std::filesystem::path(PTXBENCH_TEST_DATA_DIR) / "two_kernels_ncu.cu");
  ASSERT_TRUE(candidate.has_value()) << candidate.error().message;
  EXPECT_EQ(honest_base_of(*candidate), *base)
      << "data/two_kernels_ncu.cu: the block between the control-base markers differs from "
      << "honest_gemm.inc (copy it again)";
  const std::string& text = *candidate;
  const auto run = text.find("void run(");
  ASSERT_NE(run, std::string::npos);
  const auto prologue = text.find("prologue::clear(", run);
  const auto gemm = text.find("honest::gemm(", run);
  ASSERT_NE(prologue, std::string::npos);
  ASSERT_NE(gemm, std::string::npos);
  EXPECT_LT(prologue, gemm) << "run() must launch the prologue before the GEMM";
}

}  // namespace
}  // namespace ptxbench::controls_test
