// The audit of the timed calls: which rounds are checked, and the same-kernels rule, on the two
// cheats the controls in solutions/broken/ play (a call that launches nothing, a cheaper path).
#include "ptxbench/eval/timing/timed_call_audit.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ptxbench::eval::timing {
namespace {
using ::testing::HasSubstr;

TEST(AuditRounds, AreDistinctInRangeAndFollowTheSeed) {
  const auto rounds = audit_rounds(42, 10);
  ASSERT_EQ(rounds.size(), 2u);
  for (int r : rounds) {
    EXPECT_GE(r, 0);
    EXPECT_LT(r, 10);
  }
  EXPECT_EQ(audit_rounds(42, 10), rounds) << "a replay audits the same rounds";
  std::set<std::set<int>> seen;
  for (std::uint64_t seed = 0; seed < 20; ++seed) seen.insert(audit_rounds(seed, 10));
  EXPECT_GT(seen.size(), 5u) << "the positions change with the seed";
  EXPECT_EQ(audit_rounds(1, 1), (std::set<int>{0}));
  EXPECT_TRUE(audit_rounds(1, 0).empty());
}

TEST(KernelSetRule, TheSameKernelsInEveryCallPass) {
  KernelSetRule rule;
  rule.add_call(0, {"init_workspace", "gemm"});  // the first call may do one-time work
  for (int call = 1; call < 12; ++call) rule.add_call(call, {"gemm"});
  EXPECT_EQ(rule.breach(), std::nullopt);
}

TEST(KernelSetRule, ACallThatLaunchesNothingBreaksIt) {
  KernelSetRule rule;
  for (int call = 0; call < 12; ++call)
    rule.add_call(call, call % 2 == 1 ? std::set<std::string>{} : std::set<std::string>{"gemm"});
  const auto breach = rule.breach();
  ASSERT_TRUE(breach.has_value());
  EXPECT_THAT(*breach, HasSubstr("launched no kernel where the others launched gemm"));
}

TEST(KernelSetRule, ACheaperPathAfterSomeCallsBreaksIt) {
  KernelSetRule rule;
  for (int call = 0; call < 12; ++call)
    rule.add_call(call, {call < 4 ? std::string("gemm_full") : std::string("gemm_cheap")});
  const auto breach = rule.breach();
  ASSERT_TRUE(breach.has_value());
  EXPECT_THAT(*breach, HasSubstr("3 of 11 calls launched gemm_full where the others launched "
                                 "gemm_cheap (first at call 2)"));
}

TEST(KernelSetRule, LateWorkJoinsItsCall) {
  KernelSetRule rule;
  rule.add_call(1, {"gemm"});
  rule.add_call(2, {});
  rule.add_call(2, {"gemm"});  // collected after the round ended
  EXPECT_EQ(rule.breach(), std::nullopt);
}

}  // namespace
}  // namespace ptxbench::eval::timing
