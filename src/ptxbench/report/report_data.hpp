// Everything a report is made of, computed once: the trajectories grouped into cells, splits
// and series, the comparisons and the published rows. Tables and plots are views of it.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ptxbench/report/comparison.hpp"
#include "ptxbench/report/group_key.hpp"
#include "ptxbench/report/metrics.hpp"
#include "ptxbench/report/prices.hpp"
#include "ptxbench/report/published.hpp"
#include "ptxbench/report/run_reader.hpp"

namespace ptxbench::report {

// Groups hold pointers into runs.trajectories: a ReportData moves, it is never copied.
struct ReportData {
  ReportData() = default;
  ReportData(ReportData&&) = default;
  ReportData& operator=(ReportData&&) = default;
  ReportData(const ReportData&) = delete;
  ReportData& operator=(const ReportData&) = delete;

  LoadedRuns runs;
  std::vector<int> turn_limits;  // ascending, unique
  BootstrapSettings bootstrap;
  Prices prices;
  VaryingLabels varying;
  std::map<GroupKey, TrajectorySet> cells;   // cell_key
  std::map<GroupKey, TrajectorySet> splits;  // split_key
  std::map<GroupKey, TrajectorySet> series;  // series_key
  std::vector<Comparison> comparisons;
  std::vector<PublishedRow> published;

  // Metrics of every cell, split and series at every turn limit, each group with its own
  // bootstrap seed; computed once because tables and plots read them several times.
  std::map<std::pair<GroupKey, int>, MetricsAt> metrics_by_group;

  int last_turn_limit() const { return turn_limits.empty() ? 1 : turn_limits.back(); }
  const MetricsAt& metrics(const GroupKey& key, int turn_limit) const;
};

// The turn limits a report shows when none are asked for: those the runs have, 1, 4, 8, 16 ...
// up to the largest turn budget (max_turns, or the largest turn recorded), which is always one.
std::vector<int> default_turn_limits(const std::vector<TrajectoryRecord>& trajectories);

// Groups the trajectories; comparisons and published rows are added by the caller. Empty
// turn_limits: default_turn_limits().
ReportData group_runs(LoadedRuns runs, std::vector<int> turn_limits, BootstrapSettings bootstrap,
                      Prices prices);

}  // namespace ptxbench::report
