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

ReportData group_runs(LoadedRuns runs, std::vector<int> turn_limits, BootstrapSettings bootstrap,
                      Prices prices) {
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
