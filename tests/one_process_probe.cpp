// A suite for tests/CMakeLists.txt's check of one_process_main.cpp: one case passes, one skips,
// and one fails when PTXBENCH_PROBE_FAIL is set. The main must exit 77 (skipped) without the
// failure and 1 with it: a skipped case is never reported as passed, a failure never as skipped.
#include <gtest/gtest.h>

#include <cstdlib>

TEST(OneProcessProbe, Passes) {
  SUCCEED();
}

TEST(OneProcessProbe, Skips) {
  GTEST_SKIP() << "stands for a check this machine cannot run";
}

TEST(OneProcessProbe, FailsWhenAsked) {
  if (std::getenv("PTXBENCH_PROBE_FAIL") != nullptr) FAIL() << "asked to fail";
}
