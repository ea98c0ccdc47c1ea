#include "ptxbench/report/comparison.hpp"

#include <fmt/format.h>

#include <array>
#include <map>
#include <set>

namespace ptxbench::report {
namespace {

constexpr std::array<Dimension, 3> kDimensions{Dimension::kRun, Dimension::kModel,
                                               Dimension::kContext};

const std::string& field(const TrajectoryRecord& t, Dimension d) {
  switch (d) {
    case Dimension::kRun:
      return t.run;
    case Dimension::kModel:
      return t.model;
    case Dimension::kContext:
      return t.context;
  }
  return t.context;
}

std::string& field(GroupKey& key, Dimension d) {
  switch (d) {
    case Dimension::kRun:
      return key.run;
    case Dimension::kModel:
      return key.model;
    case Dimension::kContext:
      return key.context;
  }
  return key.context;
}

std::set<std::string> values_of(const TrajectorySet& side, Dimension d) {
  std::set<std::string> values;
  for (const auto* t : side) values.insert(field(*t, d));
  return values;
}

util::Expected<Dimension> resolve(const ComparisonSpec& spec,
                                  const std::vector<TrajectoryRecord>& trajectories) {
  std::vector<Dimension> candidates;
  for (auto d : spec.dimension ? std::vector<Dimension>{*spec.dimension}
                               : std::vector<Dimension>(kDimensions.begin(), kDimensions.end())) {
    bool has_a = false;
    bool has_b = false;
    for (const auto& t : trajectories) {
      has_a = has_a || field(t, d) == spec.a;
      has_b = has_b || field(t, d) == spec.b;
    }
    if (has_a && has_b) candidates.push_back(d);
  }
  if (candidates.empty()) {
    return util::make_error(fmt::format(
        "--compare {}: no {} holds both '{}' and '{}'", spec.text,
        spec.dimension ? std::string(to_string(*spec.dimension)) : "run, model or context level",
        spec.a, spec.b));
  }
  if (candidates.size() > 1) {
    return util::make_error(fmt::format(
        "--compare {}: both names are {} and {} values; say which, e.g. --compare {}={}:{}",
        spec.text, to_string(candidates[0]), to_string(candidates[1]), to_string(candidates[0]),
        spec.a, spec.b));
  }
  return candidates.front();
}

ComparedPair pair_at(const GroupKey& key, const TrajectorySet& a, const TrajectorySet& b, int t,
                     const BootstrapSettings& base) {
  const auto settings = seeded_for(base, fmt::format("{}@{}", key.id(), t));
  ComparedPair pair{.key = key, .a = metrics_at(a, t, settings), .b = metrics_at(b, t, settings)};
  pair.correct = newcombe_difference(pair.a.correct, pair.b.correct);
  pair.verified = newcombe_difference(pair.a.verified, pair.b.verified);
  pair.verified_any = newcombe_difference(pair.a.verified_any, pair.b.verified_any);
  pair.median_speedup =
      bootstrap_difference(pair.a.best_speedups, pair.b.best_speedups, statistic_median, settings);
  return pair;
}

}  // namespace

std::string_view to_string(Dimension d) {
  switch (d) {
    case Dimension::kRun:
      return "run";
    case Dimension::kModel:
      return "model";
    case Dimension::kContext:
      return "context";
  }
  return "context";
}

util::Expected<ComparisonSpec> parse_comparison(std::string_view text) {
  ComparisonSpec spec{.text = std::string(text)};
  std::string_view rest = text;
  if (auto eq = rest.find('='); eq != std::string_view::npos) {
    const auto name = rest.substr(0, eq);
    for (auto d : kDimensions) {
      if (name == to_string(d)) spec.dimension = d;
    }
    if (!spec.dimension) {
      return util::make_error(
          fmt::format("--compare {}: '{}' is not a dimension (run, model, context)", text, name));
    }
    rest.remove_prefix(eq + 1);
  }
  const auto colon = rest.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size() ||
      rest.find(':', colon + 1) != std::string_view::npos) {
    return util::make_error(fmt::format("--compare {}: expected A:B or DIMENSION=A:B", text));
  }
  spec.a = std::string(rest.substr(0, colon));
  spec.b = std::string(rest.substr(colon + 1));
  if (spec.a == spec.b)
    return util::make_error(fmt::format("--compare {}: A and B are the same", text));
  return spec;
}

util::Expected<Comparison> compare(const ComparisonSpec& spec,
                                   const std::vector<TrajectoryRecord>& trajectories,
                                   const std::vector<int>& turn_limits,
                                   const BootstrapSettings& bootstrap) {
  auto dimension = resolve(spec, trajectories);
  if (!dimension) return dimension.error();
  Comparison result{.spec = spec, .dimension = *dimension};
  TrajectorySet side_a;
  TrajectorySet side_b;
  for (const auto& t : trajectories) {
    if (field(t, *dimension) == spec.a) side_a.push_back(&t);
    if (field(t, *dimension) == spec.b) side_b.push_back(&t);
  }
  // A label that is constant on each side is the comparison's own context, not a coordinate.
  std::vector<std::pair<Dimension, std::string>> unmatched_labels;
  for (auto d : kDimensions) {
    if (d == *dimension) continue;
    const auto in_a = values_of(side_a, d);
    const auto in_b = values_of(side_b, d);
    if (in_a.size() != 1 || in_b.size() != 1) continue;
    unmatched_labels.emplace_back(d, *in_a.begin() == *in_b.begin()
                                         ? *in_a.begin()
                                         : fmt::format("{} | {}", *in_a.begin(), *in_b.begin()));
  }
  const std::string compared = fmt::format("{} \u2192 {}", spec.a, spec.b);
  auto key_of = [&](const TrajectoryRecord& t) {
    GroupKey key = cell_key(t);
    field(key, *dimension) = compared;
    for (const auto& [d, label] : unmatched_labels) field(key, d) = label;
    return key;
  };
  std::map<GroupKey, std::pair<TrajectorySet, TrajectorySet>> cells;
  for (const auto* t : side_a) cells[key_of(*t)].first.push_back(t);
  for (const auto* t : side_b) cells[key_of(*t)].second.push_back(t);

  std::map<GroupKey, std::pair<TrajectorySet, TrajectorySet>> pooled;
  std::map<GroupKey, int> tasks_per_pool;
  for (const auto& [key, sides] : cells) {
    if (sides.first.empty() || sides.second.empty()) {
      result.unmatched.push_back(
          fmt::format("{} (only on side {})", key.id(), sides.first.empty() ? spec.b : spec.a));
      continue;
    }
    GroupKey pooled_key = key;
    pooled_key.task = kPooled;
    auto& pool = pooled[pooled_key];
    pool.first.insert(pool.first.end(), sides.first.begin(), sides.first.end());
    pool.second.insert(pool.second.end(), sides.second.begin(), sides.second.end());
    ++tasks_per_pool[pooled_key];
    for (int t : turn_limits) {
      result.pairs.push_back(pair_at(key, sides.first, sides.second, t, bootstrap));
    }
  }
  // A pooled row adds nothing when the split holds a single matched task.
  for (const auto& [key, sides] : pooled) {
    if (tasks_per_pool[key] < 2) continue;
    for (int t : turn_limits) {
      result.pairs.push_back(pair_at(key, sides.first, sides.second, t, bootstrap));
    }
  }
  return result;
}

}  // namespace ptxbench::report
