// The unseen workloads' policy and record part, and the per-verdict input seeds.
#include "ptxbench/eval/correctness/generalisation.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "ptxbench/eval/correctness/input_seed.hpp"

namespace ptxbench::eval::correctness {
namespace {
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<WorkloadResult> judged() {
  return {{.workload = "M70", .status = Verdict::kPassed},
          {.workload = "M8192", .headline = true, .status = Verdict::kPassed},
          {.workload = "unseen_M1", .unseen = true, .status = Verdict::kPassed},
          {.workload = "unseen_M8191",
           .unseen = true,
           .status = Verdict::kRuntimeError,
           .message = "an illegal memory access at M=8191"},
          {.workload = "unseen_M12345", .unseen = true, .status = Verdict::kIncorrectNumerical}};
}

TEST(Generalisation, PoliciesRoundTrip) {
  for (auto policy : {UnseenPolicy::kRequire, UnseenPolicy::kReport, UnseenPolicy::kOff})
    EXPECT_EQ(parse_unseen_policy(to_string(policy)), policy);
  EXPECT_EQ(parse_unseen_policy("always"), std::nullopt);
}

TEST(Generalisation, ShownAndUnseenAreCountedApart) {
  const auto g = summarise(judged(), UnseenPolicy::kReport);
  EXPECT_EQ(g.policy, "report");
  EXPECT_EQ(g.shown_passed, 2);
  EXPECT_EQ(g.shown_total, 2);
  EXPECT_EQ(g.unseen_passed, 1);
  EXPECT_EQ(g.unseen_total, 3);
  EXPECT_EQ(g.failed_unseen, (std::vector<std::string>{"unseen_M8191", "unseen_M12345"}));
}

TEST(Generalisation, TheMessageSaysAHiddenSizeFailedWithoutRevealingIt) {
  const auto workloads = judged();
  const WorkloadResult* failed = first_unseen_failure(workloads);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->workload, "unseen_M8191");
  const auto message =
      hidden_failure_message(summarise(workloads, UnseenPolicy::kRequire), *failed);
  EXPECT_THAT(message, HasSubstr("correct on the 2 workloads the task lists"));
  EXPECT_THAT(message, HasSubstr("not on 2 of 3 hidden workloads"));
  EXPECT_THAT(message, HasSubstr("run() failed or a kernel faulted"));
  for (const char* secret : {"8191", "12345", "unseen_", "illegal"})
    EXPECT_THAT(message, Not(HasSubstr(secret))) << secret;
  std::vector<WorkloadResult> all_good(workloads.begin(), workloads.begin() + 3);
  EXPECT_EQ(first_unseen_failure(all_good), nullptr);
}

TEST(InputSeed, SeedZeroKeepsTheTaskFilesSeeds) {
  EXPECT_EQ(workload_input_seed(3865570314u, 0), 3865570314u);
}

TEST(InputSeed, EachVerdictSeedGivesEachWorkloadItsOwnReproducibleSeed) {
  std::set<std::uint64_t> seen;
  for (std::uint64_t verdict : {1u, 2u, 77u}) {
    for (std::uint64_t workload : {4266731145u, 2745779591u, 3865570314u}) {
      const auto seed = workload_input_seed(workload, verdict);
      EXPECT_EQ(seed, workload_input_seed(workload, verdict)) << "replayable";
      seen.insert(seed);
    }
  }
  EXPECT_EQ(seen.size(), 9u);
  EXPECT_NE(draw_input_seed(), 0u);
  EXPECT_NE(draw_input_seed(), draw_input_seed());
}

}  // namespace
}  // namespace ptxbench::eval::correctness
