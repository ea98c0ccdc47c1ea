#include "ptxbench/eval/timing/timed_workloads.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ptxbench::eval {
namespace {

std::string_view trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n";
  const auto begin = text.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(kSpace) - begin + 1);
}

}  // namespace

std::vector<std::size_t> TimedWorkloads::select(const task::Task& task) const {
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < task.workloads.size(); ++i) {
    const auto& w = task.workloads[i];
    const bool named = std::find(names.begin(), names.end(), w.name) != names.end();
    if (w.headline || all || named) indices.push_back(i);
  }
  return indices;
}

std::string TimedWorkloads::spec() const {
  if (all) return "all";
  if (names.empty()) return "headline";
  return fmt::format("{}", fmt::join(names, ","));
}

util::Expected<TimedWorkloads> parse_timed_workloads(std::string_view spec) {
  TimedWorkloads timed;
  bool any = false;
  std::size_t start = 0;
  while (start <= spec.size()) {
    auto comma = spec.find(',', start);
    if (comma == std::string_view::npos) comma = spec.size();
    const auto name = trim(spec.substr(start, comma - start));
    start = comma + 1;
    if (name.empty()) continue;
    any = true;
    if (name == "all") {
      timed.all = true;
    } else if (name != "headline" &&
               std::find(timed.names.begin(), timed.names.end(), name) == timed.names.end()) {
      timed.names.emplace_back(name);
    }
  }
  if (!any) {
    return util::make_error(fmt::format(
        "'{}': expected headline, all, or a comma list of workload names (M8192,M8828)", spec));
  }
  if (timed.all) timed.names.clear();
  return timed;
}

std::optional<double> geometric_mean_speedup(const std::vector<WorkloadResult>& workloads) {
  double log_sum = 0;
  std::size_t n = 0;
  for (const auto& w : workloads) {
    if (!w.speedup || *w.speedup <= 0) continue;
    log_sum += std::log(*w.speedup);
    ++n;
  }
  if (n == 0) return std::nullopt;
  return std::exp(log_sum / static_cast<double>(n));
}

std::size_t timed_count(const std::vector<WorkloadResult>& workloads) {
  return static_cast<std::size_t>(
      std::count_if(workloads.begin(), workloads.end(),
                    [](const WorkloadResult& w) { return w.speedup.has_value(); }));
}

}  // namespace ptxbench::eval
