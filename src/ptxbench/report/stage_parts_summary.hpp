// Where the GPU time of many verdicts went: per GPU stage and part (eval/stage_parts.hpp), the
// median, 95th percentile and mean seconds over the verdicts judged on a GPU, with each stage's
// whole time and process starts. `ptxbench report` shows it per run (table "judging_parts");
// benchmarks/stage_parts prints it for the records of `ptxbench eval --json`.
#pragma once
#include <string>
#include <vector>

#include "ptxbench/eval/evaluation.hpp"

namespace ptxbench::report {

struct PartQuantiles {
  std::string stage;  // "sanitize", "correctness", ...
  std::string part;   // a part name, or "total" (the stage's seconds), "processes" (a count)
  int verdicts = 0;   // verdicts whose stage ran
  double p50 = 0;
  double p95 = 0;
  double mean = 0;
};

// The GPU stage records of one verdict judged on a GPU (not cached: its stages would be another
// verdict's), stripped of their messages.
std::vector<eval::StageRecord> gpu_stage_costs(const eval::Evaluation& evaluation);

// Over verdicts: per stage that ran, its total and process count, then each part (a verdict whose
// stage lacks a part counts 0 for it), in stage order and part-name order.
std::vector<PartQuantiles> summarise_stage_parts(
    const std::vector<std::vector<eval::StageRecord>>& verdicts);

// One Markdown table of those rows.
std::string stage_parts_markdown(const std::vector<PartQuantiles>& rows);

}  // namespace ptxbench::report
