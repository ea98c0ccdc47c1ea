// The human summary: one row per candidate and the reason of each that did not pass.
#include "ptxbench/eval/summary.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace ptxbench::eval {
namespace {
using ::testing::HasSubstr;

TEST(Summary, RowsAndReasons) {
  Evaluation not_run{.task = "gemm_n7168_k5120",
                     .source_name = "good.cu",
                     .verdict = Verdict::kNotRun,
                     .message = "compiled; GPU stages not run: no GPU"};
  not_run.kernels.push_back(
      {.name = "k", .registers = 168, .shared_bytes = 2048, .spill_store_bytes = 8});
  not_run.families.push_back({.family = "GMMA", .requested = true, .static_count = 20});
  not_run.families.push_back({.family = "WARPGROUP", .static_count = 5});

  Evaluation passed{.task = "gemm_n7168_k5120",
                    .source_name = "fast.cu",
                    .verdict = Verdict::kPassed,
                    .message = "correct"};
  passed.families.push_back(
      {.family = "GMMA", .requested = true, .static_count = 20, .executed_count = 900});
  passed.workloads.push_back({.workload = "M8192",
                              .headline = true,
                              .status = Verdict::kPassed,
                              .candidate = TimingStats{.median_ms = 0.7345},
                              .speedup = 0.998});

  Evaluation broken{.task = "gemm_n7168_k5120",
                    .source_name = "bad.cu",
                    .verdict = Verdict::kCompileError,
                    .message = "nvcc exit 2: candidate.cu(8): error: expected a \";\""};

  const auto text = render_summary({not_run, passed, broken});
  EXPECT_THAT(text, HasSubstr("candidate"));
  EXPECT_THAT(text, HasSubstr("good.cu"));
  EXPECT_THAT(text, HasSubstr("NOT_RUN"));
  EXPECT_THAT(text, HasSubstr("GMMA 20"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("WARPGROUP")));  // only requested families
  EXPECT_THAT(text, HasSubstr("168 / 2048 B / 8 B"));
  EXPECT_THAT(text, HasSubstr("GPU stages not run"));
  EXPECT_THAT(text, HasSubstr("GMMA 20 (ran 900)"));
  EXPECT_THAT(text, HasSubstr("1.00x vs baseline (0.735 ms)"));
  EXPECT_THAT(text, HasSubstr("bad.cu: nvcc exit 2: candidate.cu(8): error"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("fast.cu: correct")));  // passed rows need no reason
  // One header, three rows, a blank line, two reasons.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 7);
}

TEST(Summary, HeadlineOnlyTimingHasNoWorkloadSection) {
  Evaluation e{.task = "gemm_n7168_k5120", .source_name = "fast.cu", .verdict = Verdict::kPassed};
  e.workloads.push_back({.workload = "M8192", .headline = true, .speedup = 0.98});
  e.workloads.push_back({.workload = "M8828"});
  const auto text = render_summary({e, e});
  EXPECT_THAT(text, ::testing::Not(HasSubstr("geometric mean")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("per timed workload")));
}

TEST(Summary, SeveralTimedWorkloadsOfSeveralTasks) {
  Evaluation core{
      .task = "gemm_n7168_k5120", .source_name = "gemm.cu", .verdict = Verdict::kPassed};
  core.workloads.push_back({.workload = "M70", .status = Verdict::kPassed});
  core.workloads.push_back({.workload = "M8192", .headline = true, .speedup = 0.977});
  core.workloads.push_back({.workload = "M8828", .speedup = 0.95});
  Evaluation narrow{
      .task = "gemm_n128_k2048", .source_name = "gemm.cu", .verdict = Verdict::kPassed};
  narrow.workloads.push_back({.workload = "M8192", .headline = true, .speedup = 0.6});
  narrow.workloads.push_back({.workload = "M8828", .speedup = 0.64});
  Evaluation failed{.task = "gemm_n256_k7168",
                    .source_name = "gemm.cu",
                    .verdict = Verdict::kTimeout,
                    .message = "timing M8828: killed after 120 s"};

  const auto text = render_summary({core, narrow, failed});
  EXPECT_THAT(text, HasSubstr("gemm_n7168_k5120 (hopper)"));
  EXPECT_THAT(text, HasSubstr("gemm_n128_k2048 (hopper)"));
  EXPECT_THAT(text, HasSubstr("gemm.cu on gemm_n7168_k5120  M8192 0.977x, M8828 0.950x"));
  EXPECT_THAT(text, HasSubstr("gemm.cu on gemm_n128_k2048   M8192 0.600x, M8828 0.640x"));
  // The failed evaluation timed nothing: no line of its own in the per-workload section.
  const auto section = text.substr(text.find("per timed workload:"));
  EXPECT_THAT(section.substr(0, section.find("geometric mean")),
              ::testing::Not(HasSubstr("gemm_n256_k7168")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("M70 ")));
  const double geomean = std::pow(0.977 * 0.95 * 0.6 * 0.64, 0.25);
  EXPECT_THAT(text,
              HasSubstr(fmt::format("geometric mean over 4 timed workloads: {:.3f}x", geomean)));
  EXPECT_THAT(text, HasSubstr("gemm.cu on gemm_n256_k7168: timing M8828: killed after 120 s"));
}

// Resources as launched, the speed of light, and a check that did not finish: in the table, the
// reasons and the line printed as each verdict comes.
TEST(Summary, LaunchedResourcesSpeedOfLightAndNotChecked) {
  Evaluation e{.task = "gemm_n7168_k5120", .source_name = "slow.cu", .verdict = Verdict::kPassed};
  e.kernels.push_back({.name = "k", .registers = 168, .shared_bytes = 0});
  e.kernels[0].launched = LaunchResources{
      .registers_per_thread = 240, .static_shared_bytes = 1024, .dynamic_shared_bytes = 200704};
  e.stages.push_back(
      {.stage = Stage::kSanitize,
       .status = StageStatus::kNotChecked,
       .message = "not checked: racecheck (timed out) did not finish\nmemcheck: clean"});
  e.workloads.push_back({.workload = "M8192",
                         .headline = true,
                         .status = Verdict::kPassed,
                         .candidate = TimingStats{.median_ms = 1.0},
                         .speedup = 0.5,
                         .speed_of_light = SpeedOfLight{.bound_ms = 0.62, .fraction = 0.62}});
  const std::string text = render_summary({e});
  EXPECT_THAT(text, HasSubstr("240 / 201728 B / 0 B"));
  EXPECT_THAT(text, HasSubstr("0.50x vs baseline (1.000 ms, 62% of speed of light)"));
  EXPECT_THAT(text, HasSubstr("slow.cu: sanitize: not checked: racecheck (timed out)"));
  const std::string line = render_verdict_line(e);
  EXPECT_THAT(line, HasSubstr("slow.cu on gemm_n7168_k5120 (hopper): PASSED"));
  EXPECT_THAT(line, HasSubstr("[sanitize: not checked: racecheck"));
  EXPECT_THAT(line, ::testing::Not(HasSubstr("memcheck: clean")));
}

}  // namespace
}  // namespace ptxbench::eval
