// Stage parts: the vocabulary, the clock that splits a process's time, and the reading of a
// reply's parts (untrusted: a candidate-side process reports them).
#include "ptxbench/eval/stage_parts.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <thread>

namespace ptxbench::eval {
namespace {

TEST(StageParts, OnlyKnownNamesWithSaneSecondsAreRead) {
  const auto parts = parts_from_json(nlohmann::json{{"context", 0.25},
                                                    {"copies", 1},
                                                    {"timing_lies", 9.0},
                                                    {"inputs", -1.0},
                                                    {"comparison", 1e9},
                                                    {"candidate_calls", "fast"},
                                                    {"other", 0.0}});
  EXPECT_EQ(parts.size(), 3u);
  EXPECT_DOUBLE_EQ(parts.at("context"), 0.25);
  EXPECT_DOUBLE_EQ(parts.at("copies"), 1.0);
  EXPECT_DOUBLE_EQ(parts.at("other"), 0.0);
  EXPECT_TRUE(parts_from_json(nlohmann::json::array({1, 2})).empty());
  EXPECT_TRUE(parts_from_json(nlohmann::json(std::numeric_limits<double>::quiet_NaN())).empty());
  EXPECT_TRUE(is_part_name("gpu_wait"));
  EXPECT_FALSE(is_part_name("gpu"));
}

TEST(StageParts, AddingSumsByNameAndJsonRoundTrips) {
  StageParts a{{"context", 0.5}};
  add_part(a, "context", 0.25);
  add_parts(a, StageParts{{"copies", 1.0}, {"context", 0.25}});
  EXPECT_DOUBLE_EQ(a.at("context"), 1.0);
  EXPECT_DOUBLE_EQ(a.at("copies"), 1.0);
  EXPECT_EQ(parts_from_json(parts_to_json(a)), a);
}

TEST(PartClock, MarksSplitTheElapsedTimeWithoutLosingAny) {
  PartClock clock;
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  clock.mark("context");
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  // 10 ms of the 30 were a copy, measured inside the call.
  clock.mark_split("candidate_calls", "copies", 0.010);
  // A split larger than the time since the mark takes all of it, never more.
  clock.mark_split("comparison", "copies", 100.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto parts = clock.parts();
  EXPECT_GE(parts.at("context"), 0.029);
  EXPECT_GE(parts.at("candidate_calls"), 0.019);
  EXPECT_GE(parts.at("copies"), 0.010);
  EXPECT_LT(parts.at("copies"), 0.015);
  EXPECT_GE(parts.at("other"), 0.019);  // since the last mark
  double sum = 0;
  for (const auto& [name, seconds] : parts) sum += seconds;
  EXPECT_NEAR(sum, clock.elapsed_seconds(), 0.005);
}

}  // namespace
}  // namespace ptxbench::eval
