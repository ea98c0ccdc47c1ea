#include "ptxbench/eval/timing/stream_rule.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ptxbench::eval::worker {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::uint32_t kCaller = 13;
constexpr std::uint32_t kPrivate = 21;
const std::string kAnonymousKernel = "_ZN12_GLOBAL__N_110gemm_tiledEPKsS1_Psiii";
const std::string kTemplateKernel = "_Z4tileILi64EEvPf";

StreamWork kernels_on(std::uint32_t stream, std::vector<std::string> names) {
  return StreamWork{.stream_id = stream,
                    .kernels = static_cast<int>(names.size()),
                    .kernel_names = std::move(names)};
}

TEST(StreamRule, WorkOnTheCallersStreamPasses) {
  StreamRule rule(kCaller);
  StreamWork memset{.stream_id = kCaller, .memory_operations = 1};
  rule.add_call(true, {kernels_on(kCaller, {kAnonymousKernel}), memset});
  rule.add_call(true, {kernels_on(kCaller, {kAnonymousKernel, kTemplateKernel})});
  EXPECT_FALSE(rule.violated());
  EXPECT_EQ(rule.message(), "");
  EXPECT_TRUE(rule.summary().other_stream_ids.empty());
}

TEST(StreamRule, AKernelOnAnotherStreamIsABreachThatNamesIt) {
  StreamRule rule(kCaller);
  rule.add_call(true, {kernels_on(kPrivate, {kAnonymousKernel})});
  ASSERT_TRUE(rule.violated());
  std::string message = rule.message();
  EXPECT_THAT(message, HasSubstr("stream other than the caller's"));
  EXPECT_THAT(message, HasSubstr("CUPTI stream id 21, the caller's is 13"));
  EXPECT_THAT(message, HasSubstr("1 kernel: (anonymous namespace)::gemm_tiled"));
  EXPECT_THAT(message, Not(HasSubstr("short const*")));  // parameter lists are left out
  EXPECT_THAT(message, HasSubstr("TVMFFIEnvGetStream"));
  EXPECT_THAT(message, Not(HasSubstr("another thread")));
}

TEST(StreamRule, OnlyTheOtherStreamsWorkIsCounted) {
  StreamRule rule(kCaller);
  rule.add_call(true,
                {kernels_on(kCaller, {kAnonymousKernel}), kernels_on(kPrivate, {kTemplateKernel})});
  rule.add_call(
      true, {kernels_on(kPrivate, {kTemplateKernel}), kernels_on(kPrivate + 1, {kTemplateKernel})});
  ASSERT_TRUE(rule.violated());
  StreamSummary j = rule.summary();
  EXPECT_EQ(j.caller_stream_id, kCaller);
  EXPECT_EQ(j.other_stream_ids, (std::vector<std::uint32_t>{kPrivate, kPrivate + 1}));
  EXPECT_EQ(j.kernels, 3);
  EXPECT_EQ(j.kernel_names, (std::vector<std::string>{kTemplateKernel}));
  EXPECT_THAT(rule.message(), HasSubstr("CUPTI stream ids 21, 22"));
  EXPECT_THAT(rule.message(), HasSubstr("3 kernels: tile<64>"));
  EXPECT_THAT(rule.message(), Not(HasSubstr("gemm_tiled")));
}

TEST(StreamRule, WorkFromABackgroundThreadOnAnotherStreamIsABreach) {
  StreamRule rule(kCaller);
  StreamWork background = kernels_on(kPrivate, {kAnonymousKernel});
  background.background_launches = 1;
  rule.add_call(true, {kernels_on(kCaller, {kTemplateKernel}), background});
  ASSERT_TRUE(rule.violated());
  EXPECT_THAT(rule.message(), HasSubstr("1 launch from another thread between calls"));
  EXPECT_EQ(rule.summary().background_launches, 1);
  rule.add_call(true, {background});
  EXPECT_THAT(rule.message(), HasSubstr("2 launches from another thread between calls"));
}

TEST(StreamRule, BackgroundWorkOnTheCallersStreamIsNotABreach) {
  StreamRule rule(kCaller);
  StreamWork background = kernels_on(kCaller, {kAnonymousKernel});
  background.background_launches = 1;
  rule.add_call(true, {background});
  EXPECT_FALSE(rule.violated()) << rule.message();
}

TEST(StreamRule, AMemoryOperationOffTheCallersStreamIsABreach) {
  // A synchronous cudaMemcpy runs on the legacy default stream; a record may also carry no stream.
  StreamRule rule(kCaller);
  rule.add_call(true, {StreamWork{.stream_id = kNoStreamId, .memory_operations = 2}});
  ASSERT_TRUE(rule.violated());
  EXPECT_THAT(rule.message(), HasSubstr("CUPTI stream id none"));
  EXPECT_THAT(rule.message(), HasSubstr("0 kernels; 2 memory operations"));
}

TEST(StreamRule, BaselineCallsAreNotJudged) {
  StreamRule rule(kCaller);
  rule.add_call(false, {kernels_on(kPrivate, {kAnonymousKernel}),
                        StreamWork{.stream_id = kPrivate + 1, .memory_operations = 1}});
  EXPECT_FALSE(rule.violated());
  EXPECT_EQ(rule.message(), "");
  rule.add_call(true, {kernels_on(kCaller, {kTemplateKernel})});
  EXPECT_FALSE(rule.violated());
}

TEST(StreamRule, AnEmptyTraceIsNoBreach) {
  StreamRule rule(kCaller);
  EXPECT_FALSE(rule.violated());
  rule.add_call(true, {});
  rule.add_call(true, {StreamWork{.stream_id = kPrivate}});  // a stream entry without work
  EXPECT_FALSE(rule.violated());
  EXPECT_EQ(rule.message(), "");
  StreamSummary j = rule.summary();
  EXPECT_EQ(j.kernels, 0);
  EXPECT_EQ(j.memory_operations, 0);
}

TEST(StreamRule, ManyKernelNamesAreShortened) {
  StreamRule rule(kCaller);
  std::vector<std::string> names;
  for (int i = 0; i < 11; ++i) names.push_back("kernel_" + std::to_string(i));
  rule.add_call(true, {kernels_on(kPrivate, names)});
  std::string message = rule.message();
  EXPECT_THAT(message, HasSubstr("11 kernels: kernel_0, kernel_1"));
  EXPECT_THAT(message, HasSubstr("kernel_7 and 3 more"));
  EXPECT_THAT(message, Not(HasSubstr("kernel_8")));
}

}  // namespace
}  // namespace ptxbench::eval::worker
