#include "ptxbench/report/group_key.hpp"

#include <fmt/format.h>

#include <set>

namespace ptxbench::report {

std::string GroupKey::id() const {
  return fmt::format("{}/{}/{}/{}/{}/{}", run, model, task, arch, context, split);
}

GroupKey cell_key(const TrajectoryRecord& t) {
  return {.run = t.run,
          .model = t.model,
          .task = t.task,
          .arch = t.arch,
          .context = t.context,
          .split = t.split};
}

GroupKey split_key(const TrajectoryRecord& t) {
  auto key = cell_key(t);
  key.task = kPooled;
  return key;
}

GroupKey series_key(const TrajectoryRecord& t) {
  auto key = split_key(t);
  key.split = kPooled;
  return key;
}

std::map<GroupKey, TrajectorySet> group_by(const std::vector<TrajectoryRecord>& trajectories,
                                           KeyOf key_of) {
  std::map<GroupKey, TrajectorySet> groups;
  for (const auto& trajectory : trajectories) groups[key_of(trajectory)].push_back(&trajectory);
  return groups;
}

VaryingLabels varying_labels(const std::vector<TrajectoryRecord>& trajectories) {
  std::set<std::string> runs;
  std::set<std::string> contexts;
  std::set<std::string> archs;
  for (const auto& t : trajectories) {
    runs.insert(t.run);
    contexts.insert(t.context);
    archs.insert(t.arch);
  }
  return {.run = runs.size() > 1, .context = contexts.size() > 1, .arch = archs.size() > 1};
}

std::string series_label(const GroupKey& key, const VaryingLabels& varying) {
  std::string label = key.model;
  if (varying.context) label += " \u00b7 " + key.context;
  if (varying.arch && key.arch != kPooled) label += " \u00b7 " + key.arch;
  if (varying.run) label += " (" + key.run + ")";
  return label;
}

}  // namespace ptxbench::report
