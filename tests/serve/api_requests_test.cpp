// The API's request bodies read by the one field reader (util/field_reader.hpp): types, ranges,
// unknown and duplicate keys, each problem as "field: what is wrong".
#include "ptxbench/serve/api_requests.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ptxbench::serve {
namespace {
using ::testing::HasSubstr;

template <class T>
std::string error_of(const util::Expected<T>& parsed) {
  return parsed.has_value() ? "(parsed)" : parsed.error().message;
}

TEST(ApiRequests, ASubmissionIsReadFieldByField) {
  auto job = parse_submission(R"({"task": "t", "arch": "hopper", "reply": "r"})");
  ASSERT_TRUE(job.has_value()) << job.error().message;
  EXPECT_TRUE(job->is_markdown);
  EXPECT_EQ(job->source_name, "reply.md");
  EXPECT_EQ(error_of(parse_submission(R"({"task": "t", "arch": "hopper"})")),
            "code, reply: give exactly one of them");
  EXPECT_EQ(error_of(parse_submission(R"({"task": 3, "arch": "hopper", "code": "c"})")),
            "task: expected a string");
  EXPECT_EQ(error_of(parse_submission(R"({"task": "t", "arch": "hopper", "code": "c", "x": 1})")),
            "x: unknown field");
  EXPECT_EQ(error_of(parse_submission(R"({"arch": "hopper", "code": "c"})")), "task: required");
  EXPECT_EQ(error_of(parse_submission("[1]")), "body: expected a JSON object");
  EXPECT_EQ(error_of(parse_submission("{")), "body: not valid JSON");
}

// JSON keeps one of two equal keys; which code would be judged is then a guess, so it is refused.
TEST(ApiRequests, AKeyGivenTwiceIsRefused) {
  EXPECT_EQ(
      error_of(parse_submission(R"({"task": "t", "arch": "hopper", "code": "a", "code": "b"})")),
      "code: given twice");
  EXPECT_EQ(error_of(parse_reset(R"({"arch": "hopper", "reward": {"a": 1, "a": 2}})")),
            "reward.a: given twice");
}

TEST(ApiRequests, ResetNumbersAreCheckedAtFullWidth) {
  auto reset = parse_reset(
      R"({"arch": "blackwell", "seed": 18446744073709551615, "max_turns": 3,
          "target_speedup": 1.5})");
  ASSERT_TRUE(reset.has_value()) << reset.error().message;
  EXPECT_EQ(reset->seed, 18446744073709551615ull);
  EXPECT_EQ(reset->max_turns, 3);
  EXPECT_EQ(reset->target_speedup, 1.5);
  EXPECT_EQ(reset->split, "train");
  // get<int> would make 4294967297 a 1.
  EXPECT_EQ(error_of(parse_reset(R"({"arch": "hopper", "max_turns": 4294967297})")),
            "max_turns: expected an integer from 1 to 1000 (got 4294967297)");
  EXPECT_EQ(error_of(parse_reset(R"({"arch": "hopper", "max_turns": 0})")),
            "max_turns: expected an integer from 1 to 1000 (got 0)");
  EXPECT_THAT(error_of(parse_reset(R"({"arch": "hopper", "seed": -1})")),
              HasSubstr("seed: expected a non-negative integer"));
  EXPECT_EQ(error_of(parse_reset(R"({"arch": "hopper", "target_speedup": 0})")),
            "target_speedup: expected a number > 0");
  EXPECT_EQ(error_of(parse_reset(R"({"max_turns": 2})")), "arch: required (hopper or blackwell)");
  EXPECT_THAT(error_of(parse_reset(R"({"arch": "hopper", "context": "all"})")),
              HasSubstr("context: all: expected"));
}

TEST(ApiRequests, AStepNeedsItsSessionAndReply) {
  auto step = parse_step(R"({"session": "s", "reply": "r"})");
  ASSERT_TRUE(step.has_value()) << step.error().message;
  EXPECT_EQ(step->session, "s");
  EXPECT_EQ(error_of(parse_step(R"({"session": "s"})")), "reply: required");
  EXPECT_EQ(error_of(parse_step(R"({"session": 1, "reply": "r"})")), "session: expected a string");
}

}  // namespace
}  // namespace ptxbench::serve
