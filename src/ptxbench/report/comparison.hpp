// Two sides of one dimension side by side (`--compare none:isa`, `--compare run=base:tuned`):
// cells of side A and side B that agree on everything else are paired, and each metric is
// reported for both with the difference B − A and its 95% interval (Newcombe's hybrid score
// interval for rates, a bootstrap for the median best speedup). A label dimension that takes a
// single value on each side (the model of a base run and of a tuned run) is not matched on.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/report/group_key.hpp"
#include "ptxbench/report/metrics.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::report {

enum class Dimension { kRun, kModel, kContext };
std::string_view to_string(Dimension dimension);

struct ComparisonSpec {
  std::optional<Dimension> dimension;  // nullopt: whichever dimension holds both names
  std::string a;
  std::string b;
  std::string text;  // as given
};
util::Expected<ComparisonSpec> parse_comparison(std::string_view text);

struct ComparedPair {
  GroupKey key;  // the matched coordinates; task "all" for a pooled row
  MetricsAt a;
  MetricsAt b;
  Difference correct;
  Difference verified;
  Difference verified_any;
  Estimate median_speedup;  // median best speedup, B − A
};

struct Comparison {
  ComparisonSpec spec;
  Dimension dimension = Dimension::kContext;
  std::vector<ComparedPair> pairs;     // per matched cell and turn limit, then pooled rows
  std::vector<std::string> unmatched;  // cells of one side with no partner
};

util::Expected<Comparison> compare(const ComparisonSpec& spec,
                                   const std::vector<TrajectoryRecord>& trajectories,
                                   const std::vector<int>& turn_limits,
                                   const BootstrapSettings& bootstrap);

}  // namespace ptxbench::report
