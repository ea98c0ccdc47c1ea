// Suggestions for mistyped command and task names.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ptxbench/cli/command.hpp"

namespace ptxbench::cli {
namespace {
using ::testing::ElementsAre;

const std::vector<std::string> kTasks{"gemm_n7168_k5120",        "gemm_n5120_k5120",
                                      "gemm_n34816_k5120",       "mha_fwd_lse_d128",
                                      "mha_fwd_lse_d128_causal", "mha_bwd_d128"};

TEST(ClosestNames, TyposGiveTheNearestNameOnly) {
  EXPECT_THAT(closest_names("gemm_n7168_k512", kTasks), ElementsAre("gemm_n7168_k5120"));
  EXPECT_THAT(closest_names("mha_fwd_lse_d12", kTasks), ElementsAre("mha_fwd_lse_d128"));
  EXPECT_THAT(closest_names("mha_fwd_d128", kTasks),
              ElementsAre("mha_bwd_d128"));  // 1 edit beats 4
  EXPECT_THAT(closest_names("taks", {"tasks", "eval", "prompt", "run", "demo", "report"}),
              ElementsAre("tasks"));
  EXPECT_THAT(closest_names("evl", {"tasks", "eval", "prompt"}), ElementsAre("eval"));
}

TEST(ClosestNames, PrefixesCount) {
  EXPECT_THAT(closest_names("mha_bwd", kTasks), ElementsAre("mha_bwd_d128"));
}

TEST(ClosestNames, NothingCloseGivesNothing) {
  EXPECT_TRUE(closest_names("convolution", kTasks).empty());
  EXPECT_TRUE(closest_names("", {"tasks"}).empty());
  EXPECT_EQ(did_you_mean("xyz", {"tasks", "eval"}), "");
}

TEST(DidYouMean, Phrasing) {
  EXPECT_EQ(did_you_mean("gemm_n7168_k512", kTasks), " (did you mean gemm_n7168_k5120?)");
  EXPECT_EQ(did_you_mean("rum", {"run", "rue"}), " (did you mean run or rue?)");
}

}  // namespace
}  // namespace ptxbench::cli
