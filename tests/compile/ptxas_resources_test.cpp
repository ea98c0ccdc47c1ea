// ptxas -v output as nvcc 13.0 prints it.
#include "ptxbench/compile/ptxas_resources.hpp"

#include <gtest/gtest.h>

namespace ptxbench::compile {
namespace {

TEST(PtxasResources, ReadsEveryEntryAndSkipsDeviceFunctions) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z4gemmPK13__nv_bfloat16' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z4gemmPK13__nv_bfloat16\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 90 registers, used 1 barriers, 1024 bytes smem\n"
      "ptxas info    : Compile time = 114.138 ms\n"
      "ptxas info    : Function properties for _Z6helperv\n"
      "    16 bytes stack frame, 12 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Compiling entry function '_Z5otherv' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z5otherv\n"
      "    40 bytes stack frame, 32 bytes spill stores, 24 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 0 barriers, 400 bytes cmem[0]\n";
  const auto kernels = parse_ptxas_resources(log);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "_Z4gemmPK13__nv_bfloat16");
  EXPECT_EQ(kernels[0].registers, 90);
  EXPECT_EQ(kernels[0].shared_bytes, 1024);
  EXPECT_EQ(kernels[0].spill_store_bytes, 0);
  EXPECT_EQ(kernels[1].name, "_Z5otherv");
  EXPECT_EQ(kernels[1].registers, 255);
  EXPECT_EQ(kernels[1].shared_bytes, 0);
  EXPECT_EQ(kernels[1].stack_bytes, 40);
  EXPECT_EQ(kernels[1].spill_store_bytes, 32);
  EXPECT_EQ(kernels[1].spill_load_bytes, 24);
}

TEST(PtxasResources, LogsWithoutResourcesGiveNothing) {
  EXPECT_TRUE(parse_ptxas_resources("").empty());
  EXPECT_TRUE(parse_ptxas_resources("candidate.cu(8): error: expected a \";\"\n").empty());
  // Numbers too large for an int do not throw.
  const auto kernels = parse_ptxas_resources(
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Used 99999999999999999999 registers\n");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].registers, 0);
}

// A log line of 1 MB (a candidate's enormous identifier echoed by ptxas) is read, not a crash:
// a regex matcher recursing per character overflowed the stack on such lines.
TEST(PtxasResources, MegabyteLinesAreParsedWithoutRecursion) {
  const std::string huge(1u << 20, 'a');
  const std::string digits(1u << 20, '7');
  const std::string log =
      "ptxas info    : Compiling entry function '" + huge + "' for 'sm_90a'\n" +
      "ptxas info    : Function properties for " + huge + "\n" + "    " + digits +
      " bytes stack frame, 8 bytes spill stores\n" + "ptxas info    : Used 12 registers, " + huge +
      " " + digits + " bytes smem\n" + std::string(1u << 20, '(') + "\n" + "Used " + digits + "\n";
  const auto kernels = parse_ptxas_resources(log);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].name.size(), huge.size());
  EXPECT_EQ(kernels[0].stack_bytes, 0);  // too large for an int
  EXPECT_EQ(kernels[0].spill_store_bytes, 8);
  EXPECT_EQ(kernels[0].registers, 12);
  EXPECT_EQ(kernels[0].shared_bytes, 0);
}

}  // namespace
}  // namespace ptxbench::compile
