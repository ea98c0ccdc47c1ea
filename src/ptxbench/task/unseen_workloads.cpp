#include "ptxbench/task/unseen_workloads.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace ptxbench::task {
namespace {

constexpr std::int64_t kTile = 64;  // the smallest tile a GPU kernel commonly assumes

// FNV-1a: a fixed seed per (task, workload), the same on every machine and in every release.
std::uint64_t stable_seed(std::string_view a, std::string_view b) {
  std::uint64_t hash = 1469598103934665603ull;
  for (std::string_view part : {a, std::string_view("/"), b}) {
    for (unsigned char c : part) {
      hash ^= c;
      hash *= 1099511628211ull;
    }
  }
  return hash & 0xffffffffull;  // the task files' seeds are 32-bit
}

}  // namespace

std::vector<std::int64_t> unseen_values(std::int64_t lo, std::int64_t hi,
                                        const std::vector<std::int64_t>& shown,
                                        std::int64_t headline,
                                        std::optional<std::int64_t> multiple_of) {
  auto ragged = [&](std::int64_t v) {
    if (multiple_of) return v / *multiple_of * *multiple_of;
    return v % kTile == 0 ? v + 1 : v;
  };
  std::vector<std::int64_t> candidates{lo};
  std::optional<std::int64_t> below;
  for (auto v : shown) {
    if (v < headline && (!below || v > *below)) below = v;
  }
  if (below) {
    const double mean = std::sqrt(static_cast<double>(*below) * static_cast<double>(headline));
    candidates.push_back(ragged(std::llround(mean)));
  }
  candidates.push_back(multiple_of ? ragged(headline - 1) : headline - 1);
  candidates.push_back(hi);
  std::set<std::int64_t> out;
  const std::set<std::int64_t> seen(shown.begin(), shown.end());
  for (auto v : candidates) {
    if (multiple_of) v = v / *multiple_of * *multiple_of;
    if (v < lo || v > hi || v <= 0 || seen.contains(v)) continue;
    out.insert(v);
  }
  return {out.begin(), out.end()};
}

std::vector<Workload> unseen_workloads(const Task& task) {
  std::vector<Workload> out;
  if (task.unseen.bounds.empty() || task.workloads.empty()) return out;
  const Workload& headline = task.headline();
  for (const auto& [axis_name, range] : task.unseen.bounds) {
    const Axis* axis = task.find_axis(axis_name);
    auto at = headline.axes.find(axis_name);
    if (axis == nullptr || at == headline.axes.end()) continue;  // refused by the parser
    std::vector<std::int64_t> shown;
    for (const auto& w : task.workloads) shown.push_back(w.axes.at(axis_name));
    for (auto value :
         unseen_values(range.first, range.second, shown, at->second, axis->multiple_of)) {
      Workload w{.name = fmt::format("unseen_{}{}", axis_name, value),
                 .axes = headline.axes,
                 .distribution = Distribution::kNormal,
                 .headline = false,
                 .unseen = true};
      w.axes[axis_name] = value;
      w.seed = stable_seed(task.name, w.name);
      out.push_back(std::move(w));
    }
  }
  return out;
}

}  // namespace ptxbench::task
