// The analytic bound of a workload and the fraction of it a candidate reached.
#include "ptxbench/eval/timing/speed_of_light.hpp"

#include <gtest/gtest.h>

namespace ptxbench::eval {
namespace {

// The core GEMM shape on an H200 at 1830 MHz: compute bound.
TEST(SpeedOfLight, GemmIsComputeBoundAtTheMeasuredClock) {
  const double m = 8192, n = 7168, k = 5120;
  auto s = speed_of_light({.flops = 2 * m * n * k,
                           .bytes = 2 * (m * k + n * k + m * n),
                           .sm_count = 132,
                           .sm_clock_mhz = 1830,
                           .arch = arch::Arch::kHopper,
                           .gpu_name = "NVIDIA H200",
                           .candidate_ms = 1.0});
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(s->peak_tflops, 989.4, 0.5);
  EXPECT_NEAR(s->compute_bound_ms, 2 * m * n * k / 989.4e12 * 1e3, 1e-3);
  EXPECT_DOUBLE_EQ(s->hbm_gbytes_per_s, 4800);
  EXPECT_LT(s->memory_bound_ms, s->compute_bound_ms);
  EXPECT_DOUBLE_EQ(s->bound_ms, s->compute_bound_ms);
  EXPECT_NEAR(s->fraction, s->bound_ms / 1.0, 1e-12);
}

TEST(SpeedOfLight, ALowClockLowersThePeak) {
  auto fast =
      speed_of_light({.flops = 1e12, .sm_count = 132, .sm_clock_mhz = 1980, .candidate_ms = 2});
  auto slow =
      speed_of_light({.flops = 1e12, .sm_count = 132, .sm_clock_mhz = 990, .candidate_ms = 2});
  ASSERT_TRUE(fast && slow);
  EXPECT_NEAR(slow->compute_bound_ms, 2 * fast->compute_bound_ms, 1e-9);
}

TEST(SpeedOfLight, MemoryBoundWhenBytesDominate) {
  auto s = speed_of_light({.flops = 1e9,
                           .bytes = 4.8e9,
                           .sm_count = 132,
                           .sm_clock_mhz = 1830,
                           .gpu_name = "NVIDIA H200",
                           .candidate_ms = 2});
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(s->memory_bound_ms, 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(s->bound_ms, s->memory_bound_ms);
  EXPECT_NEAR(s->fraction, 0.5, 1e-9);
}

TEST(SpeedOfLight, UnknownGpuGivesTheComputeBoundAloneAndNothingWithoutAClock) {
  auto s = speed_of_light({.flops = 1e12,
                           .bytes = 1e12,
                           .sm_count = 100,
                           .sm_clock_mhz = 1000,
                           .gpu_name = "Some GPU",
                           .candidate_ms = 1});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->memory_bound_ms, 0);
  EXPECT_FALSE(speed_of_light({.flops = 1e12, .sm_count = 100, .candidate_ms = 1}));
}

}  // namespace
}  // namespace ptxbench::eval
