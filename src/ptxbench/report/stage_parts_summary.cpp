#include "ptxbench/report/stage_parts_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "ptxbench/report/statistics.hpp"

namespace ptxbench::report {
namespace {

bool gpu_stage(eval::Stage stage) {
  return stage == eval::Stage::kSanitize || stage == eval::Stage::kCorrectness ||
         stage == eval::Stage::kDynamicSass || stage == eval::Stage::kTiming;
}

bool ran(const eval::StageRecord& record) {
  return record.status != eval::StageStatus::kSkipped &&
         record.status != eval::StageStatus::kNotRun;
}

PartQuantiles quantiles(std::string stage, std::string part, std::vector<double> values) {
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  return {.stage = std::move(stage),
          .part = std::move(part),
          .verdicts = static_cast<int>(values.size()),
          .p50 = values.empty() ? 0 : quantile_sorted(values, 0.5),
          .p95 = values.empty() ? 0 : quantile_sorted(values, 0.95),
          .mean = values.empty() ? 0 : sum / static_cast<double>(values.size())};
}

}  // namespace

std::vector<eval::StageRecord> gpu_stage_costs(const eval::Evaluation& evaluation) {
  std::vector<eval::StageRecord> out;
  if (evaluation.cached) return out;
  for (const auto& record : evaluation.stages) {
    if (!gpu_stage(record.stage) || !ran(record)) continue;
    out.push_back(record);
    out.back().message.clear();
  }
  return out;
}

std::vector<PartQuantiles> summarise_stage_parts(
    const std::vector<std::vector<eval::StageRecord>>& verdicts) {
  struct Samples {
    std::vector<double> totals, processes;
    std::set<std::string> parts;
    std::vector<const eval::StageRecord*> records;
  };
  std::map<eval::Stage, Samples> stages;
  for (const auto& verdict : verdicts) {
    for (const auto& record : verdict) {
      Samples& s = stages[record.stage];
      s.totals.push_back(record.seconds);
      s.processes.push_back(record.processes);
      for (const auto& [name, seconds] : record.parts) s.parts.insert(name);
      s.records.push_back(&record);
    }
  }
  std::vector<PartQuantiles> rows;
  for (const auto& [stage, s] : stages) {
    const std::string name(eval::to_string(stage));
    rows.push_back(quantiles(name, "total", s.totals));
    rows.push_back(quantiles(name, "processes", s.processes));
    for (const auto& part : s.parts) {
      std::vector<double> values;
      for (const auto* record : s.records) {
        auto it = record->parts.find(part);
        values.push_back(it == record->parts.end() ? 0.0 : it->second);
      }
      rows.push_back(quantiles(name, part, std::move(values)));
    }
  }
  return rows;
}

std::string stage_parts_markdown(const std::vector<PartQuantiles>& rows) {
  std::string out =
      "| stage | part | verdicts | p50 s | p95 s | mean s |\n|---|---|---|---|---|---|\n";
  for (const auto& row : rows) {
    if (row.part == "processes") {
      out += fmt::format("| {} | {} | {} | {:.0f} | {:.0f} | {:.2f} |\n", row.stage, row.part,
                         row.verdicts, row.p50, row.p95, row.mean);
    } else {
      out += fmt::format("| {} | {} | {} | {:.3f} | {:.3f} | {:.3f} |\n", row.stage, row.part,
                         row.verdicts, row.p50, row.p95, row.mean);
    }
  }
  return out;
}

}  // namespace ptxbench::report
