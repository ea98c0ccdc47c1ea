#include "ptxbench/report/comparison.hpp"

#include <gtest/gtest.h>

#include "trajectory_builder.hpp"

namespace ptxbench::report {
namespace {
using eval::Verdict;
using prompt::ContextLevel;
using testing::fails;
using testing::passed;
using testing::TrajectorySpec;

TrajectoryRecord record(TrajectorySpec spec, std::string run = "r1") {
  auto r = record_of(testing::make_trajectory(spec));
  r.run = std::move(run);
  return r;
}

// k correct trajectories of n on one task, arch and context.
void add_cell(std::vector<TrajectoryRecord>& out, const std::string& model, const std::string& task,
              ContextLevel context, int k, int n, const std::string& run = "r1") {
  for (int i = 0; i < n; ++i) {
    out.push_back(record({.model = model,
                          .task = task,
                          .context = context,
                          .sample = i,
                          .turns = {i < k ? passed(1.0 + 0.1 * i) : fails(Verdict::kCompileError)}},
                         run));
  }
}

TEST(ComparisonSpec, Parses) {
  auto plain = parse_comparison("none:isa");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->dimension);
  EXPECT_EQ(plain->a, "none");
  EXPECT_EQ(plain->b, "isa");
  auto explicit_run = parse_comparison("run=base:tuned");
  ASSERT_TRUE(explicit_run);
  EXPECT_EQ(explicit_run->dimension, Dimension::kRun);
  for (const char* bad : {"none", "none:", ":isa", "a:b:c", "size=a:b", "x:x"}) {
    EXPECT_FALSE(parse_comparison(bad)) << bad;
  }
}

TEST(Comparison, ContextLevelsPairByTaskWithNewcombeDifferences) {
  std::vector<TrajectoryRecord> t;
  add_cell(t, "m", "gemm_n7168_k5120", ContextLevel::kNone, 3, 10);
  add_cell(t, "m", "gemm_n7168_k5120", ContextLevel::kIsa, 9, 10);
  add_cell(t, "m", "mha_fwd_lse_d128", ContextLevel::kNone, 0, 10);
  add_cell(t, "m", "mha_fwd_lse_d128", ContextLevel::kIsa, 0, 10);
  add_cell(t, "m", "mha_bwd_d128", ContextLevel::kNone, 2, 4);  // no isa partner
  auto c = compare(*parse_comparison("none:isa"), t, {1, 8}, {.resamples = 100, .seed = 1});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->dimension, Dimension::kContext);
  ASSERT_EQ(c->unmatched.size(), 1u);
  EXPECT_NE(c->unmatched[0].find("mha_bwd_d128"), std::string::npos);
  // Two tasks x two limits, then the pooled split at two limits.
  ASSERT_EQ(c->pairs.size(), 6u);
  const ComparedPair* gemm = nullptr;
  const ComparedPair* pooled = nullptr;
  for (const auto& p : c->pairs) {
    if (p.key.task == "gemm_n7168_k5120" && p.a.turn_limit == 8) gemm = &p;
    if (p.key.task == kPooled && p.a.turn_limit == 8) pooled = &p;
  }
  ASSERT_TRUE(gemm && pooled);
  EXPECT_EQ(gemm->key.context, "none \u2192 isa");
  EXPECT_EQ(gemm->a.correct.k, 3);
  EXPECT_EQ(gemm->b.correct.k, 9);
  // 9/10 - 3/10 is Newcombe's example (b): 0.6 [0.1705, 0.8090].
  EXPECT_NEAR(*gemm->correct.value, 0.6, 1e-12);
  EXPECT_NEAR(gemm->correct.interval->lo, 0.1705, 5e-5);
  EXPECT_NEAR(gemm->correct.interval->hi, 0.8090, 5e-5);
  EXPECT_EQ(pooled->a.correct.n, 20);
  EXPECT_EQ(pooled->b.correct.k, 9);
  ASSERT_TRUE(gemm->median_speedup.value);
  EXPECT_NEAR(*gemm->median_speedup.value, 1.4 - 1.1, 1e-9);  // medians of 1.0..1.8 and 1.0..1.2
}

TEST(Comparison, RunsWithOneModelEachMatchAcrossModelNames) {
  std::vector<TrajectoryRecord> t;
  add_cell(t, "qwen", "gemm_n7168_k5120", ContextLevel::kNone, 2, 8, "base");
  add_cell(t, "qwen-tuned", "gemm_n7168_k5120", ContextLevel::kNone, 6, 8, "tuned");
  auto c = compare(*parse_comparison("base:tuned"), t, {8}, {.resamples = 0});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->dimension, Dimension::kRun);
  ASSERT_EQ(c->pairs.size(), 1u);
  EXPECT_EQ(c->pairs[0].key.model, "qwen | qwen-tuned");
  EXPECT_EQ(c->pairs[0].key.run, "base \u2192 tuned");
  EXPECT_NEAR(*c->pairs[0].correct.value, 0.5, 1e-12);
  EXPECT_TRUE(c->unmatched.empty());
}

TEST(Comparison, ErrorsNameTheProblem) {
  std::vector<TrajectoryRecord> t;
  add_cell(t, "none", "gemm_n7168_k5120", ContextLevel::kNone, 1, 2, "isa");
  add_cell(t, "isa", "gemm_n7168_k5120", ContextLevel::kIsa, 1, 2, "none");
  auto missing = compare(*parse_comparison("guide:examples"), t, {8}, {});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("guide"), std::string::npos);
  // "none" and "isa" are run labels, models and context levels at once here.
  auto ambiguous = compare(*parse_comparison("none:isa"), t, {8}, {});
  ASSERT_FALSE(ambiguous);
  EXPECT_NE(ambiguous.error().message.find("say which"), std::string::npos);
  EXPECT_TRUE(compare(*parse_comparison("context=none:isa"), t, {8}, {.resamples = 0}));
}

}  // namespace
}  // namespace ptxbench::report
