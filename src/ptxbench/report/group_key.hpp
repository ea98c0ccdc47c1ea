// The coordinates metrics are grouped by: run, model, task, arch, context level, split. A field
// that is pooled over holds kPooled ("all"); a comparison marks its compared field "A → B".
#pragma once
#include <compare>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/report/metrics.hpp"
#include "ptxbench/report/trajectory_record.hpp"

namespace ptxbench::report {

inline constexpr std::string_view kPooled = "all";

struct GroupKey {
  std::string run;
  std::string model;
  std::string task;
  std::string arch;
  std::string context;
  std::string split;
  auto operator<=>(const GroupKey&) const = default;
  std::string id() const;  // "run/model/task/arch/context/split", for seeds and anchors
};

// One cell of the report: a (run, model, task, arch, context) and the task's split.
GroupKey cell_key(const TrajectoryRecord& trajectory);
// Pooled over tasks, kept apart by split.
GroupKey split_key(const TrajectoryRecord& trajectory);
// Pooled over tasks and splits: what a plot calls one series.
GroupKey series_key(const TrajectoryRecord& trajectory);

using KeyOf = GroupKey (*)(const TrajectoryRecord&);
std::map<GroupKey, TrajectorySet> group_by(const std::vector<TrajectoryRecord>& trajectories,
                                           KeyOf key_of);

// Which of the label dimensions take more than one value among the trajectories: a series
// label names only those (the model always).
struct VaryingLabels {
  bool run = false;
  bool context = false;
  bool arch = false;
};
VaryingLabels varying_labels(const std::vector<TrajectoryRecord>& trajectories);
std::string series_label(const GroupKey& key, const VaryingLabels& varying);

}  // namespace ptxbench::report
