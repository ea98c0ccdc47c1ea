// Where many verdicts' GPU time went: quantiles per stage and part, with a verdict lacking a part
// counting 0 for it, and cached verdicts left out (their stages were another verdict's).
#include "ptxbench/report/stage_parts_summary.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ptxbench::report {
namespace {
using eval::Stage;
using eval::StageRecord;
using eval::StageStatus;

StageRecord correctness(double seconds, eval::StageParts parts, int processes) {
  return {.stage = Stage::kCorrectness,
          .status = StageStatus::kPassed,
          .seconds = seconds,
          .message = "within tolerance",
          .parts = std::move(parts),
          .processes = processes};
}

const PartQuantiles& row(const std::vector<PartQuantiles>& rows, const std::string& stage,
                         const std::string& part) {
  for (const auto& r : rows)
    if (r.stage == stage && r.part == part) return r;
  ADD_FAILURE() << "no row " << stage << " " << part;
  return rows.front();
}

TEST(StagePartsSummary, QuantilesPerPartCountAMissingPartAsZero) {
  std::vector<std::vector<StageRecord>> verdicts;
  for (int i = 1; i <= 4; ++i) {
    eval::StageParts parts{{"context", 0.1 * i}};
    if (i == 4) parts["copies"] = 2.0;  // only the last verdict copied anything
    verdicts.push_back({correctness(1.0 * i, parts, i == 1 ? 2 : 1)});
  }
  const auto rows = summarise_stage_parts(verdicts);
  ASSERT_EQ(rows.size(), 4u);  // total, processes, context, copies
  EXPECT_DOUBLE_EQ(row(rows, "correctness", "total").p50, 2.5);
  EXPECT_DOUBLE_EQ(row(rows, "correctness", "total").mean, 2.5);
  EXPECT_DOUBLE_EQ(row(rows, "correctness", "processes").p50, 1.0);
  const auto& copies = row(rows, "correctness", "copies");
  EXPECT_EQ(copies.verdicts, 4);
  EXPECT_DOUBLE_EQ(copies.p50, 0.0);
  EXPECT_DOUBLE_EQ(copies.mean, 0.5);
  EXPECT_GT(copies.p95, 1.0);
  const auto table = stage_parts_markdown(rows);
  EXPECT_THAT(table, ::testing::HasSubstr("| correctness | copies | 4 | 0.000 |"));
  EXPECT_THAT(table, ::testing::HasSubstr("| correctness | processes | 4 | 1 |"));
}

TEST(StagePartsSummary, OnlyGpuStagesThatRanOfVerdictsJudgedHere) {
  eval::Evaluation judged;
  judged.stages = {{.stage = Stage::kCompile, .status = StageStatus::kPassed, .seconds = 5},
                   correctness(2, {{"context", 0.3}}, 2),
                   {.stage = Stage::kTiming, .status = StageStatus::kSkipped}};
  const auto costs = gpu_stage_costs(judged);
  ASSERT_EQ(costs.size(), 1u);
  EXPECT_EQ(costs[0].stage, Stage::kCorrectness);
  EXPECT_TRUE(costs[0].message.empty());
  judged.cached = eval::CachedVerdict{.key = "k", .from = "2026-12-07T00:00:00Z"};
  EXPECT_TRUE(gpu_stage_costs(judged).empty());
}

}  // namespace
}  // namespace ptxbench::report
