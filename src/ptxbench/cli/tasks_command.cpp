// `ptxbench tasks [--family F] [--arch A] [--split S]`: the suite as a table;
// `ptxbench tasks show NAME [--arch A]`: one task as a model sees it.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/cli/task_suite.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/task/task_render.hpp"

namespace ptxbench::cli {
namespace {

struct TasksOptions {
  std::string family;
  std::string arch;
  std::string split;
  std::string tasks_dir;
  std::string show_name;
  std::string show_arch;
};

std::string headline_text(const task::Task& task) {
  const auto& headline = task.headline();
  std::vector<std::string> values;
  for (const auto& [axis, value] : headline.axes)
    values.push_back(fmt::format("{}={}", axis, value));
  return fmt::format("{}", fmt::join(values, ","));
}

std::string requested_text(const task::Task& task, std::optional<arch::Arch> only) {
  std::vector<std::string> parts;
  for (const auto& [a, families] : task.requested) {
    if (only && a != *only) continue;
    parts.push_back(fmt::format("{}: {}", arch::to_string(a), fmt::join(families, " ")));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

void print_table(const std::vector<const task::Task*>& tasks, std::optional<arch::Arch> arch) {
  std::vector<std::array<std::string, 6>> rows{
      {"name", "family", "split", "headline", "TFLOP", "requested families"}};
  for (const auto* t : tasks) {
    rows.push_back({t->name + (t->core ? " *" : ""), t->family, t->split, headline_text(*t),
                    fmt::format("{:.3f}", t->flops(t->headline()) / 1e12),
                    requested_text(*t, arch)});
  }
  std::array<std::size_t, 6> width{};
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    fmt::print("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:>{}}  {}\n", row[0], width[0], row[1], width[1],
               row[2], width[2], row[3], width[3], row[4], width[4], row[5]);
  }
  fmt::print("\n{} tasks; * = core task of the original research; TFLOP at the headline workload\n",
             tasks.size());
}

// Parses an --arch value; prints the problem and returns false when it is not an arch name.
bool parse_arch_option(const std::string& text, std::optional<arch::Arch>& out) {
  if (text.empty()) return true;
  out = arch::parse(text);
  if (out) return true;
  std::vector<std::string> names;
  for (auto a : arch::all()) names.emplace_back(arch::to_string(a));
  fmt::print(stderr, "ptxbench tasks: --arch {}: unknown arch{} (hopper, blackwell)\n", text,
             did_you_mean(text, names));
  return false;
}

int list_tasks(const std::vector<task::Task>& suite, const TasksOptions& options) {
  std::optional<arch::Arch> arch;
  if (!parse_arch_option(options.arch, arch)) return kExitUsage;
  std::set<std::string> family_set;
  for (const auto& t : suite) family_set.insert(t.family);
  const std::vector<std::string> families(family_set.begin(), family_set.end());
  if (!options.family.empty() && !family_set.contains(options.family)) {
    fmt::print(stderr, "ptxbench tasks: no family '{}'{} (families: {})\n", options.family,
               did_you_mean(options.family, families), fmt::join(families, ", "));
    return kExitUsage;
  }
  if (!options.split.empty() && options.split != "train" && options.split != "heldout") {
    fmt::print(stderr, "ptxbench tasks: --split {}: expected train or heldout\n", options.split);
    return kExitUsage;
  }
  std::vector<const task::Task*> shown;
  for (const auto& t : suite) {
    if (!options.family.empty() && t.family != options.family) continue;
    if (!options.split.empty() && t.split != options.split) continue;
    if (arch && !t.requested.contains(*arch)) continue;
    shown.push_back(&t);
  }
  print_table(shown, arch);
  return kExitOk;
}

int show_task(const std::vector<task::Task>& suite, const TasksOptions& options) {
  std::optional<arch::Arch> arch;
  if (!parse_arch_option(options.show_arch, arch)) return kExitUsage;
  const task::Task* task = task::find_task(suite, options.show_name);
  if (task == nullptr) {
    std::vector<std::string> names;
    for (const auto& t : suite) names.push_back(t.name);
    fmt::print(stderr, "ptxbench tasks show: no task named '{}'{}\n", options.show_name,
               did_you_mean(options.show_name, names));
    return kExitUsage;
  }
  fmt::print("{}", task::render_for_model(*task, arch));
  return kExitOk;
}

}  // namespace

void add_tasks_command(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<TasksOptions>();
  auto* sub = app.add_subcommand("tasks", "");
  sub->add_option("--family", options->family,
                  "Only this family (the folder under tasks/: gemm, mha_fwd, ...)");
  sub->add_option("--arch", options->arch,
                  "Only tasks with requested families for this arch; show those");
  sub->add_option("--split", options->split, "Only train or heldout tasks");
  sub->add_option("--tasks-dir", options->tasks_dir,
                  "Task suite directory (default: the built-in suite)");
  auto* show = sub->add_subcommand("show", "Show one task as a model sees it");
  show->add_option("name", options->show_name, "Task name")->required();
  show->add_option("--arch", options->show_arch, "Name the requested families for this arch");
  show->fallthrough();  // --tasks-dir may follow the task name
  sub->callback([options, show, &context] {
    auto suite = load_task_suite("tasks", options->tasks_dir);
    if (!suite) {
      context.exit_code = kExitUsage;
      return;
    }
    context.exit_code = show->parsed() ? show_task(*suite, *options) : list_tasks(*suite, *options);
  });
}

}  // namespace ptxbench::cli
