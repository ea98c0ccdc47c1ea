#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <utility>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/cli/provider_help.hpp"

namespace ptxbench::cli {
namespace {
constexpr std::array<CommandSpec, 13> kCommands{{
    {"tasks", "List the task suite, or show one task as a model sees it", false,
     &add_tasks_command},
    {"eval", "Evaluate candidate kernels (.cu or model responses) on a task", true,
     &add_eval_command},
    {"prompt", "Print the prompt a model gets for a task, arch and context level", false,
     &add_prompt_command},
    {"run", "Run models over tasks x archs x context levels x samples (resumable)", true,
     &add_run_command, &providers_help},
    {"demo", "The built-in default: replay the project's solutions through the full loop", true,
     &add_demo_command},
    {"report", "Tables, plots, a leaderboard and the trajectory viewer of one or more runs", false,
     &add_report_command},
    {"serve", "The evaluation service and RL environment over HTTP (docs/serve.md)", true,
     &add_serve_command},
    {"export-traces", "Write runs' turns as a dataset (JSON Lines + dataset card)", false,
     &add_export_traces_command},
    {"export-tasks", "Write tasks as folders for agent harnesses (--format harbor)", false,
     &add_export_tasks_command},
    {"merge", "Combine the shard folders of a run (ptxbench run --slurm) into one run", false,
     &add_merge_command},
    {"fixit",
     "Training data from failures: mine, balance, repair, verify, explain, export, retrieve", true,
     &add_fixit_command},
    {"study", "The Fixit study of one study file: runs, Fixit, training, tuned runs, one table",
     true, &add_study_command},
    {"settings", "The engine's settings: file field, flag, default and meaning of each", false,
     &add_settings_command},
}};

// Levenshtein distance with one row of memory.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}
}  // namespace

std::span<const CommandSpec> commands() {
  return kCommands;
}

std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& names,
                                       std::size_t limit) {
  const std::size_t allowed = std::max<std::size_t>(2, name.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> close;
  for (const auto& candidate : names) {
    std::size_t distance = edit_distance(name, candidate);
    if (name.size() >= 3 && std::string_view(candidate).starts_with(name))
      distance = std::min(distance, allowed);
    if (distance <= allowed && candidate != name) close.emplace_back(distance, candidate);
  }
  std::stable_sort(close.begin(), close.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // Only the best: "gemm_n7168_k512" suggests gemm_n7168_k5120, not every GEMM two edits away.
  std::vector<std::string> out;
  for (std::size_t i = 0; i < close.size() && i < limit && close[i].first == close.front().first;
       ++i)
    out.push_back(close[i].second);
  return out;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& names) {
  const auto close = closest_names(name, names);
  if (close.empty()) return "";
  if (close.size() == 1) return fmt::format(" (did you mean {}?)", close.front());
  const std::vector<std::string> head(close.begin(), close.end() - 1);
  return fmt::format(" (did you mean {} or {}?)", fmt::join(head, ", "), close.back());
}

}  // namespace ptxbench::cli
