// BM25 retrieval over verified repairs and the `retrieval` context level built from it.
#include "ptxbench/fixit/retrieve.hpp"

#include <gtest/gtest.h>

#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::fixit {
namespace {

std::vector<RetrievalDocument> documents() {
  return {{.mined_id = "a",
           .task = "gemm_n7168_k5120",
           .arch = "hopper",
           .verdict = "TIMEOUT",
           .error_text = "deadline exceeded mbarrier wait",
           .repaired_code = "A",
           .reasoning = "phase"},
          {.mined_id = "b",
           .task = "mha_fwd_lse_d128",
           .arch = "hopper",
           .verdict = "COMPILE_ERROR",
           .error_text = "ptxas error wgmma operand",
           .repaired_code = "B",
           .reasoning = "operand"},
          {.mined_id = "c",
           .task = "gemm_n4096_k4096",
           .arch = "hopper",
           .verdict = "INCORRECT_NUMERICAL",
           .error_text = "max abs error 3.5 swizzle",
           .repaired_code = "C",
           .reasoning = "swizzle"}};
}

TEST(Tokenize, SplitsNamesIntoPieces) {
  EXPECT_EQ(tokenize("GEMM_n7168 x-y"),
            (std::vector<std::string>{"gemm_n7168", "gemm", "n7168", "x", "y"}));
}

TEST(Retrieval, RanksBySharedRareTerms) {
  RetrievalIndex index(documents());
  auto hits = index.search("gemm TIMEOUT mbarrier", 3);
  ASSERT_GE(hits.size(), 2u);
  EXPECT_EQ(hits[0].document->mined_id, "a");
  EXPECT_EQ(hits[1].document->mined_id, "c");  // shares only "gemm"
  EXPECT_GT(hits[0].score, hits[1].score);
  auto attention = index.search("mha_fwd_lse_d128 compile error", 1);
  ASSERT_EQ(attention.size(), 1u);
  EXPECT_EQ(attention[0].document->mined_id, "b");
  EXPECT_TRUE(index.search("nothing shared", 3).empty());
}

TEST(RetrievalLevel, AddsTheRepairsToTheSystemPrompt) {
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  const task::Task* task = task::find_task(*suite, "gemm_n7168_k5120");
  ASSERT_NE(task, nullptr);
  auto level = prompt::parse_context_level("retrieval");
  ASSERT_TRUE(level);
  EXPECT_FALSE(
      prompt::build_prompt(*task, arch::Arch::kHopper, *level, prompt::default_context_dir()));
  auto hook = retrieval_hook(std::make_shared<const RetrievalIndex>(documents()), 1);
  auto built =
      prompt::build_prompt(*task, arch::Arch::kHopper, *level, prompt::default_context_dir(), hook);
  ASSERT_TRUE(built) << built.error().message;
  EXPECT_NE(built->system.find("Repair 1: gemm_n7168_k5120 on hopper, TIMEOUT"), std::string::npos)
      << built->system;
  EXPECT_EQ(built->system.find("Repair 2"), std::string::npos);
}

}  // namespace
}  // namespace ptxbench::fixit
