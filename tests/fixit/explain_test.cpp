// Explanation checks and the re-ask loop.
#include "ptxbench/fixit/explain.hpp"

#include <gtest/gtest.h>

#include "../agent/fakes.hpp"
#include "fixit_samples.hpp"

namespace ptxbench::fixit {
namespace {

const std::string kFixed =
    "__global__ void gemm_main(const bf16* a, const bf16* b, float* c) {\n"
    "  const int row_of_this_thread = blockIdx.y * 128 + threadIdx.y;\n"
    "  const int col_of_this_thread = blockIdx.x * 128 + threadIdx.x;\n"
    "  if (row_of_this_thread >= problem_m) return;\n"
    "  accumulate_the_tile_products(a, b, c);\n"
    "  store_the_accumulators_to_c(c);\n"
    "}\n";

std::string words(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += "word ";
  return out;
}

ExplanationLimits medium() {
  return {.bin = {"medium", 150, 500}, .token_budget = 2000, .max_shared_lines = 2};
}

TEST(ExplanationCheck, AcceptsPlainFirstPersonProse) {
  EXPECT_EQ(rejection_reason("I looked at the feedback. " + words(200), kFixed, medium()),
            std::nullopt);
}

TEST(ExplanationCheck, RejectsTagsLeaksCodeQuotesBudgetAndLength) {
  auto limits = medium();
  EXPECT_NE(rejection_reason("<think>" + words(200) + "</think>", kFixed, limits)->find("tags"),
            std::string::npos);
  EXPECT_NE(rejection_reason("The reference solution says " + words(200), kFixed, limits)
                ->find("seeing the answer"),
            std::string::npos);
  EXPECT_NE(
      rejection_reason(words(200) + "\n```cuda\nint x;\n```", kFixed, limits)->find("code block"),
      std::string::npos);
  std::string quoted = words(200) + "\n" + kFixed;
  EXPECT_NE(rejection_reason(quoted, kFixed, limits)->find("quotes"), std::string::npos);
  EXPECT_NE(rejection_reason(words(40), kFixed, limits)->find("40 words"), std::string::npos);
  limits.token_budget = 100;
  EXPECT_NE(rejection_reason(words(200), kFixed, limits)->find("budget"), std::string::npos);
  EXPECT_EQ(*rejection_reason("   ", kFixed, limits), "the explanation is empty");
}

// Tags in any case and spacing, chat-template tokens, and a megabyte of look-alikes, which a
// regex matcher recursing per character could not take.
TEST(ExplanationCheck, MarkupTagsFoundByPlainScanning) {
  auto limits = medium();
  for (std::string tag : {"< Answer >", "</THINKING>", "<code>", "<|im_end|>", "</ solution>"}) {
    auto reason = rejection_reason(words(100) + tag + words(100), kFixed, limits);
    ASSERT_TRUE(reason) << tag;
    EXPECT_NE(reason->find("tags"), std::string::npos) << tag;
  }
  for (std::string fine : {"a < b > c", "<thinker>", "<||>", "<| im_end |>", "if x<code then"}) {
    auto reason = rejection_reason(words(200) + fine, kFixed, limits);
    EXPECT_TRUE(!reason || reason->find("tags") == std::string::npos) << fine;
  }
  std::string huge(1u << 20, '<');
  huge += "<|" + std::string(1u << 19, 'a');
  EXPECT_EQ(rejection_reason(huge, kFixed, limits)->find("tags"), std::string::npos);
  EXPECT_NE(rejection_reason(huge + "|>", kFixed, limits)->find("tags"), std::string::npos);
}

TEST(LengthBins, ByName) {
  EXPECT_EQ(find_length_bin("short")->max_words, 200);
  EXPECT_EQ(find_length_bin("long")->min_words, 400);
  EXPECT_FALSE(find_length_bin("tiny"));
}

TEST(Explain, ReasksWithTheReasonUntilAccepted) {
  auto row = testing::mined_row("gemm_n7168_k5120", eval::Verdict::kCompileError, 1, 1);
  RepairRow repair{.mined_id = row.id, .status = RepairStatus::kRepaired, .code = kFixed};
  std::vector<model::Conversation> seen;
  auto provider = std::make_shared<testing::FakeProvider>(
      [&seen](const model::Conversation& conversation,
              const model::CallContext& context) -> model::CallResult {
        seen.push_back(conversation);
        if (context.turn == 1) return model::Reply{.content = "<think>" + words(200) + "</think>"};
        return model::Reply{.content = "I see the compile error. " + words(180)};
      });
  Teacher explainer{.name = "fake", .kind = "command", .provider = provider};
  ExplainedRow out = explain_row(row, repair, explainer, {.limits = medium()});
  EXPECT_TRUE(out.accepted());
  EXPECT_EQ(out.attempts, 2);
  ASSERT_EQ(out.rejections.size(), 1u);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].size(), 4u);  // system, request, the rejected reply, why it was rejected
  EXPECT_NE(seen[1][3].content.find("tags"), std::string::npos);
  EXPECT_NE(seen[0][1].content.find("150 to 500 words"), std::string::npos);
}

TEST(Explain, GivesUpAfterTheLastAttempt) {
  auto row = testing::mined_row("gemm_n7168_k5120", eval::Verdict::kCompileError, 1, 1);
  RepairRow repair{.mined_id = row.id, .status = RepairStatus::kRepaired, .code = kFixed};
  auto provider = std::make_shared<testing::FakeProvider>(
      [](const model::Conversation&, const model::CallContext&) -> model::CallResult {
        return model::Reply{.content = "too short"};
      });
  ExplainedRow out = explain_row(row, repair, {.name = "fake", .provider = provider},
                                 {.limits = medium(), .max_attempts = 3});
  EXPECT_FALSE(out.accepted());
  EXPECT_EQ(out.attempts, 3);
  EXPECT_EQ(out.rejections.size(), 3u);
}

}  // namespace
}  // namespace ptxbench::fixit
