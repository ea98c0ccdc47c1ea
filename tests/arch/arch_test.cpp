#include "ptxbench/arch/arch.hpp"

#include <gtest/gtest.h>

namespace ptxbench::arch {
namespace {

TEST(Arch, ParseAndPrintRoundTrip) {
  for (Arch a : all()) {
    EXPECT_EQ(parse(to_string(a)), a);
    EXPECT_EQ(parse(info(a).sm), a);
  }
  EXPECT_FALSE(parse("ampere").has_value());
}

TEST(Arch, GencodeNamesTheArchSpecificTarget) {
  EXPECT_EQ(gencode_flag(Arch::kHopper), "-gencode=arch=compute_90a,code=sm_90a");
  EXPECT_EQ(gencode_flag(Arch::kBlackwell), "-gencode=arch=compute_100a,code=sm_100a");
}

}  // namespace
}  // namespace ptxbench::arch
