#include "ptxbench/demo/demo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ptxbench/model/replay_provider.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::demo {
namespace {

using eval::Verdict;

std::string families_present(const eval::Evaluation& evaluation) {
  if (evaluation.families.empty()) return "n/a";
  std::string out;
  for (const auto& family : evaluation.families) {
    if (!family.requested) continue;
    if (!out.empty()) out += " ";
    out += family.static_count > 0 ? family.family : "no-" + family.family;
  }
  return out.empty() ? "-" : out;
}

std::string families_executed(const eval::Evaluation& evaluation) {
  if (evaluation.families.empty()) return "n/a";
  std::string out;
  bool measured = false;
  for (const auto& family : evaluation.families) {
    if (!family.requested || !family.executed_count) continue;
    measured = true;
    if (!out.empty()) out += " ";
    out += family.substantial ? family.family : "no-" + family.family;
  }
  return measured ? out : "not measured";
}

std::string speedup_text(const eval::Evaluation& evaluation) {
  if (auto speedup = evaluation.headline_speedup()) return fmt::format("{:.2f}x", *speedup);
  if (evaluation.verdict == Verdict::kNotRun) return "GPU stages not run";
  return "-";
}

std::string render_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t c = 0; c < rows[r].size(); ++c) {
      out += c + 1 < rows[r].size() ? fmt::format("{:<{}}  ", rows[r][c], widths[c]) : rows[r][c];
    }
    out += "\n";
    if (r == 0) {
      for (std::size_t c = 0; c < widths.size(); ++c) {
        out += std::string(widths[c], '-') + (c + 1 < widths.size() ? "  " : "");
      }
      out += "\n";
    }
  }
  return out;
}

// "core tasks without an expert solution: ..." when a core task lacks one for an arch.
std::optional<std::string> uncovered_core_cells(const std::vector<task::Task>& suite,
                                                const std::vector<DemoEntry>& entries) {
  std::vector<std::string> uncovered;
  for (const auto& task : suite) {
    if (!task.core) continue;
    for (auto arch : arch::all()) {
      bool covered = std::any_of(entries.begin(), entries.end(), [&](const DemoEntry& e) {
        return e.spec.task == &task && e.spec.arch == arch && e.spec.model == "expert";
      });
      if (!covered) uncovered.push_back(fmt::format("{} ({})", task.name, arch::to_string(arch)));
    }
  }
  if (uncovered.empty()) return std::nullopt;
  return fmt::format("core tasks without an expert solution: {}", fmt::join(uncovered, ", "));
}

// The plan's single turn, context folder, and what run.json records of the demo: its models,
// the file each trajectory replays and the verdict that file expects.
void describe_plan(DemoPlan& demo, prompt::ContextLevel context,
                   const std::filesystem::path& context_dir) {
  nlohmann::json grid_models = nlohmann::json::array();
  for (const auto& slot : demo.plan.models) grid_models.push_back(slot.config.name);
  nlohmann::json ids = nlohmann::json::array();
  for (const auto& entry : demo.entries) {
    ids.push_back({{"id", entry.spec.id()},
                   {"reply", entry.solution.path.string()},
                   {"expect", eval::to_string(entry.solution.header.expect)}});
  }
  demo.plan.agent = agent::AgentOptions{.max_turns = 1};
  demo.plan.context_dir = context_dir;
  demo.plan.grid = {{"demo", true},
                    {"models", grid_models},
                    {"trajectories", ids},
                    {"contexts", {prompt::to_string(context)}},
                    {"turns", 1}};
  nlohmann::json model_records = nlohmann::json::array();
  for (const auto& slot : demo.plan.models) model_records.push_back(model::to_json(slot.config));
  std::set<std::string> task_names;
  for (const auto& entry : demo.entries) task_names.insert(entry.spec.task->name);
  demo.plan.config = {{"demo", true},        {"models", model_records},
                      {"tasks", task_names}, {"contexts", {prompt::to_string(context)}},
                      {"turns", 1},          {"solutions", ids}};
}

}  // namespace

std::string demo_model_name(const SolutionFile& solution) {
  if (solution.group == "hopper" || solution.group == "blackwell") return "expert";
  if (solution.group.empty()) return "solutions";
  return solution.group;
}

DemoPlan plan_demo(const std::vector<task::Task>& suite, const SolutionScan& scan,
                   prompt::ContextLevel context, const std::filesystem::path& context_dir,
                   int concurrency) {
  DemoPlan demo;
  demo.notes = scan.problems;
  model::ReplayBook book;
  std::map<std::string, int> samples;  // per model/task/arch
  std::set<std::string> models;
  for (const auto& solution : scan.files) {
    const task::Task* task = nullptr;
    for (const auto& candidate : suite) {
      if (candidate.name == solution.header.task) task = &candidate;
    }
    if (task == nullptr) {
      demo.notes.push_back(fmt::format("{}: task '{}' is not in the suite; skipped",
                                       solution.path.string(), solution.header.task));
      continue;
    }
    auto text = util::read_file(solution.path);
    if (!text) {
      demo.notes.push_back(text.error().message);
      continue;
    }
    std::string model = demo_model_name(solution);
    models.insert(model);
    std::string cell =
        fmt::format("{}/{}/{}", model, task->name, arch::to_string(solution.header.arch));
    TrajectorySpec spec{.model = model,
                        .provider = "replay",
                        .task = task,
                        .arch = solution.header.arch,
                        .context = context,
                        .sample = samples[cell]++};
    book.add(spec.id(), {{.content = model::as_reply(*text, solution.path),
                          .source = solution.path.string()}});
    demo.entries.push_back({.solution = solution, .spec = spec});
    demo.plan.trajectories.push_back(spec);
  }
  if (auto note = uncovered_core_cells(suite, demo.entries)) demo.notes.push_back(*note);

  // One replay provider serves every demo model: the trajectory id picks the reply.
  auto provider = std::make_shared<model::ReplayProvider>(std::move(book));
  for (const auto& model : models) {
    model::ProviderConfig config{
        .name = model, .kind = model::ProviderKind::kReplay, .replay_path = scan.dir};
    config.limits.concurrency = std::max(1, concurrency);
    demo.plan.models.push_back({.config = config, .provider = provider});
  }
  describe_plan(demo, context, context_dir);
  return demo;
}

std::size_t set_aside_gpu_only(DemoPlan& demo, const std::function<bool(arch::Arch)>& gpu_runs) {
  std::vector<DemoEntry> kept;
  for (auto& entry : demo.entries) {
    // A FORBIDDEN control among the solutions is one the timing stage's rules catch (the
    // library refusals of the lint stage are not shipped as solutions).
    const Verdict expect = entry.solution.header.expect;
    const bool needs_gpu = entry.spec.model != "expert" &&
                           (eval::is_gpu_stage_verdict(expect) || expect == Verdict::kForbidden) &&
                           !gpu_runs(entry.spec.arch);
    (needs_gpu ? demo.set_aside : kept).push_back(std::move(entry));
  }
  demo.entries = std::move(kept);
  std::erase_if(demo.plan.trajectories, [&demo](const TrajectorySpec& spec) {
    return std::none_of(demo.entries.begin(), demo.entries.end(),
                        [&spec](const DemoEntry& e) { return e.spec.id() == spec.id(); });
  });
  return demo.set_aside.size();
}

Agreement agreement(Verdict expected, Verdict got) {
  if (expected == got) return Agreement::kAsExpected;
  if (got == Verdict::kNotRun && eval::is_gpu_stage_verdict(expected))
    return Agreement::kConsistent;
  // Decided from the machine code alone: it cannot pass, whatever a GPU would add.
  if (got == Verdict::kInstructionsAbsent && eval::is_gpu_stage_verdict(expected) &&
      expected != Verdict::kPassed)
    return Agreement::kConsistent;
  return Agreement::kUnexpected;
}

std::string_view to_string(Agreement agreement) {
  switch (agreement) {
    case Agreement::kAsExpected:
      return "as expected";
    case Agreement::kConsistent:
      return "consistent so far";
    case Agreement::kUnexpected:
      return "UNEXPECTED";
  }
  return "?";
}

int count_unexpected(const std::vector<DemoEntry>& entries,
                     const std::vector<Trajectory>& trajectories) {
  int unexpected = 0;
  for (const auto& trajectory : trajectories) {
    for (const auto& entry : entries) {
      if (entry.spec.id() != trajectory.info.id || trajectory.turns.empty()) continue;
      const auto verdict = trajectory.turns.back().evaluation.verdict;
      unexpected += agreement(entry.solution.header.expect, verdict) == Agreement::kUnexpected;
    }
  }
  return unexpected;
}

std::string render_demo_table(const std::vector<DemoEntry>& entries,
                              const std::vector<Trajectory>& trajectories,
                              const std::vector<DemoEntry>& set_aside) {
  std::map<std::string, const Trajectory*> by_id;
  for (const auto& trajectory : trajectories) by_id[trajectory.info.id] = &trajectory;
  std::vector<std::vector<std::string>> rows{{"task", "arch", "reply", "expected", "verdict",
                                              "agreement", "present (SASS)", "executed",
                                              "speedup"}};
  std::vector<std::string> not_run_stages;  // in pipeline order, each once
  std::vector<std::string> not_run_reasons;
  for (const auto& entry : entries) {
    std::vector<std::string> row{entry.spec.task->name,
                                 std::string(arch::to_string(entry.spec.arch)),
                                 entry.solution.path.filename().string(),
                                 std::string(eval::to_string(entry.solution.header.expect))};
    auto it = by_id.find(entry.spec.id());
    if (it == by_id.end() || it->second->turns.empty()) {
      std::string why = it == by_id.end() ? "no result" : it->second->info.error;
      row.insert(row.end(), {"-", why.empty() ? "no turn" : why, "", "", ""});
      rows.push_back(std::move(row));
      continue;
    }
    const eval::Evaluation& evaluation = it->second->turns.back().evaluation;
    row.insert(
        row.end(),
        {std::string(eval::to_string(evaluation.verdict)),
         std::string(to_string(agreement(entry.solution.header.expect, evaluation.verdict))),
         families_present(evaluation), families_executed(evaluation), speedup_text(evaluation)});
    rows.push_back(std::move(row));
    for (const auto& stage : evaluation.stages) {
      if (stage.status != eval::StageStatus::kNotRun) continue;
      std::string name(eval::to_string(stage.stage));
      if (std::find(not_run_stages.begin(), not_run_stages.end(), name) == not_run_stages.end()) {
        not_run_stages.push_back(name);
      }
      if (!stage.message.empty() && std::find(not_run_reasons.begin(), not_run_reasons.end(),
                                              stage.message) == not_run_reasons.end()) {
        not_run_reasons.push_back(stage.message);
      }
    }
  }
  for (const auto& entry : set_aside) {
    rows.push_back({entry.spec.task->name, std::string(arch::to_string(entry.spec.arch)),
                    entry.solution.path.filename().string(),
                    std::string(eval::to_string(entry.solution.header.expect)), "-",
                    "needs a GPU: not replayed", "", "", ""});
  }
  std::string out = render_table(rows);
  if (!not_run_stages.empty()) {
    out += fmt::format("\nSkipped on this machine (never counted as passed): the GPU stages {}.\n",
                       fmt::join(not_run_stages, ", "));
    for (const auto& reason : not_run_reasons) out += fmt::format("  why: {}\n", reason);
  }
  if (!set_aside.empty()) {
    out += fmt::format(
        "Not replayed here: {} non-expert file(s) whose expected verdict only the GPU stages can "
        "show (`ptxbench demo --all` replays them anyway).\n",
        set_aside.size());
  }
  return out;
}

}  // namespace ptxbench::demo
