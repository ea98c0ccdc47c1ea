#include "ptxbench/report/report_data.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ptxbench/util/check.hpp"

namespace ptxbench::report {

const MetricsAt& ReportData::metrics(const GroupKey& key, int turn_limit) const {
  auto it = metrics_by_group.find({key, turn_limit});
  PTXBENCH_CHECK(it != metrics_by_group.end(),
                 fmt::format("no metrics for {} at t={}", key.id(), turn_limit));
  return it->second;
}

std::vector<int> default_turn_limits(const std::vector<TrajectoryRecord>& trajectories) {
  int budget = 1;
  for (const auto& t : trajectories) {
    budget = std::max(budget, t.max_turns);
    if (!t.turns.empty()) budget = std::max(budget, t.turns.back().turn);
  }
  std::vector<int> limits{1};
  for (int t = 4; t < budget; t *= 2) limits.push_back(t);
  if (budget > 1) limits.push_back(budget);
  return limits;
}

ReportData group_runs(LoadedRuns runs, std::vector<int> turn_limits, BootstrapSettings bootstrap,
                      Prices prices) {
  if (turn_limits.empty()) turn_limits = default_turn_limits(runs.trajectories);
  std::sort(turn_limits.begin(), turn_limits.end());
  turn_limits.erase(std::unique(turn_limits.begin(), turn_limits.end()), turn_limits.end());
  ReportData data;
  data.runs = std::move(runs);
  data.turn_limits = std::move(turn_limits);
  data.bootstrap = bootstrap;
  data.prices = std::move(prices);
  const auto& trajectories = data.runs.trajectories;
  data.varying = varying_labels(trajectories);
  data.cells = group_by(trajectories, &cell_key);
  data.splits = group_by(trajectories, &split_key);
  data.series = group_by(trajectories, &series_key);
  for (const auto* groups : {&data.cells, &data.splits, &data.series}) {
    for (const auto& [key, set] : *groups) {
      for (int t : data.turn_limits) {
        data.metrics_by_group.emplace(
            std::pair{key, t},
            metrics_at(set, t, seeded_for(data.bootstrap, fmt::format("{}@{}", key.id(), t))));
      }
    }
  }
  return data;
}

}  // namespace ptxbench::report
