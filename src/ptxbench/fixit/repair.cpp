#include "ptxbench/fixit/repair.hpp"

#include <fmt/format.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "ptxbench/agent/run_directory.hpp"
#include "ptxbench/config.hpp"
#include "ptxbench/extract/extract.hpp"
#include "ptxbench/fixit/run_trajectories.hpp"
#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::fixit {
namespace {

using Json = nlohmann::json;

bool meets(const eval::Evaluation& evaluation, const RepairOptions& options) {
  bool judged = options.strict ? evaluation.verified() : evaluation.correct();
  if (!judged) return false;
  if (!options.speedup_floor) return true;
  auto speedup = evaluation.headline_speedup();
  return speedup && *speedup >= *options.speedup_floor;
}

}  // namespace

std::string failed_attempt(const MinedRow& row) {
  if (row.code.empty())
    return fmt::format("The reply held no code block:\n\n<reply>\n{}\n</reply>", row.reply);
  return fmt::format("```cuda\n{}\n```", row.code);
}

std::string repair_request(const MinedRow& row) {
  if (row.code.empty())
    return fmt::format(
        "{}\n\n## A previous attempt that failed\n\n{}\n\n## What the evaluator said about "
        "it\n\n{}\n\n## What to do\n\nWrite the kernel the task asks for and reply with the "
        "complete file in one fenced code block.",
        row.task_prompt, failed_attempt(row), row.feedback);
  return fmt::format(
      "{}\n\n## A previous attempt that failed\n\n{}\n\n## What the evaluator said "
      "about it\n\n{}\n\n## What to do\n\nFix this kernel with a minimal change: keep what "
      "works, change what the feedback shows is wrong, and reply with the complete corrected "
      "file in one fenced code block.",
      row.task_prompt, failed_attempt(row), row.feedback);
}

agent::TrajectorySpec repair_spec(const MinedRow& row, const Teacher& teacher,
                                  const task::Task& task) {
  // The sample number comes from the row's id, so a resumed repair finds its trajectory even
  // when the selection around it changed.
  std::string digits = row.id.substr(row.id.size() >= 7 ? row.id.size() - 7 : 0);
  int sample = static_cast<int>(std::stoul(digits, nullptr, 16));
  return {.model = teacher.name,
          .provider = teacher.kind,
          .task = &task,
          .arch = row.arch,
          .context = row.context,
          .sample = sample};
}

RepairRow repair_row_of(const MinedRow& row, const Teacher& teacher,
                        const agent::Trajectory& trajectory, const RepairOptions& options) {
  RepairRow out{.mined_id = row.id,
                .teacher = teacher.name,
                .trajectory = trajectory.info.id,
                .turns = trajectory.completed_turns()};
  const agent::TurnRecord* chosen = nullptr;
  for (const auto& turn : trajectory.turns) {
    if (meets(turn.evaluation, options)) {
      chosen = &turn;
      out.status = RepairStatus::kRepaired;
      break;
    }
  }
  if (chosen == nullptr) {
    for (const auto& turn : trajectory.turns)
      if (turn.evaluation.verdict == eval::Verdict::kNotRun) chosen = &turn;
    if (chosen != nullptr) out.status = RepairStatus::kUnjudged;
  }
  if (chosen == nullptr && !trajectory.turns.empty()) chosen = &trajectory.turns.back();
  if (out.status == RepairStatus::kRepaired) {
    // no reason needed
  } else if (!trajectory.info.error.empty()) {
    out.reason = "the teacher failed: " + trajectory.info.error;
  } else if (out.status == RepairStatus::kUnjudged) {
    out.reason = "the GPU stages did not run here (fixit verify judges it on a GPU)";
  } else if (chosen != nullptr && out.status == RepairStatus::kNotRepaired) {
    out.reason =
        fmt::format("no turn of {} met the bar (last: {}: {})", trajectory.turns.size(),
                    eval::to_string(chosen->evaluation.verdict), chosen->evaluation.message);
  } else if (chosen == nullptr) {
    out.reason = "the teacher gave no reply";
  }
  if (chosen == nullptr) return out;
  out.chosen_turn = chosen->turn;
  out.evaluation = chosen->evaluation;
  if (const auto* reply = reply_of_turn(trajectory, chosen->turn)) {
    out.reply = reply->content;
    out.code = extract::extract_code(reply->content).value_or("");
  }
  return out;
}

namespace {

// One trajectory spec per selected row, in order.
util::Expected<std::vector<agent::TrajectorySpec>> repair_specs(
    const std::vector<MinedRow>& selected, const std::vector<task::Task>& suite,
    const Teacher& teacher) {
  std::vector<agent::TrajectorySpec> specs;
  for (const auto& row : selected) {
    const task::Task* task = task::find_task(suite, row.task);
    if (task == nullptr)
      return util::make_error(fmt::format("{}: task '{}' is not in the suite", row.id, row.task));
    specs.push_back(repair_spec(row, teacher, *task));
  }
  return specs;
}

// run.json of the repair directory: which mined row each trajectory repairs (a trajectory never
// changes rows) and one entry per session.
std::optional<util::Error> record_session(agent::RunDirectory& directory,
                                          const std::vector<agent::TrajectorySpec>& specs,
                                          const std::vector<MinedRow>& selected,
                                          const Teacher& teacher, const RepairOptions& options) {
  auto existing_run = directory.read_run_json();
  if (!existing_run) return existing_run.error();
  Json run = existing_run->value_or(Json{{"ptxbench_version", config::kVersion},
                                         {"trajectory_format", agent::kTrajectoryFormat},
                                         {"ptxbench_format", agent::kPtxbenchFormat},
                                         {"created_at", agent::utc_timestamp()},
                                         {"fixit_repair", true},
                                         {"rows", Json::object()},
                                         {"sessions", Json::array()}});
  Json rows = Json::object();
  for (std::size_t i = 0; i < specs.size(); ++i) rows[specs[i].id()] = selected[i].id;
  for (const auto& [id, mined] : rows.items()) {
    if (run["rows"].contains(id) && run["rows"][id] != mined)
      return util::make_error(fmt::format("{}: trajectory {} belongs to row {}, not {}",
                                          directory.root().string(), id, run["rows"][id].dump(),
                                          mined.dump()));
    run["rows"][id] = mined;
  }
  run["sessions"].push_back({{"started_at", agent::utc_timestamp()},
                             {"teacher", teacher.name},
                             {"max_turns", options.max_turns}});
  directory.write_run_json(run);
  return std::nullopt;
}

// The trajectory each spec left in the directory before (none for a fresh one).
util::Expected<std::vector<std::optional<agent::Trajectory>>> earlier_trajectories(
    agent::RunDirectory& directory, const std::vector<agent::TrajectorySpec>& specs) {
  std::vector<std::optional<agent::Trajectory>> out;
  for (const auto& spec : specs) {
    auto loaded = directory.load_trajectory(spec.id());
    if (!loaded) return loaded.error();
    out.push_back(std::move(*loaded));
  }
  return out;
}

// Runs the repairs on `concurrency` threads, each taking the next row; a repair that throws is
// an error of the summary, the others go on.
std::vector<std::optional<agent::Trajectory>> run_repairs(
    agent::RunDirectory& directory, const std::vector<MinedRow>& selected,
    const std::vector<agent::TrajectorySpec>& specs,
    std::vector<std::optional<agent::Trajectory>> earlier, const Teacher& teacher,
    const agent::EvaluateFn& evaluate, const RepairOptions& options,
    const std::function<void(std::string_view)>& say, std::vector<std::string>& errors) {
  agent::AgentOptions agent_options{.max_turns = options.max_turns};
  // Stop a repair at its first PASSED turn that reaches the floor (0: any speed).
  if (options.strict) agent_options.target_speedup = options.speedup_floor.value_or(0.0);
  std::vector<std::optional<agent::Trajectory>> results(selected.size());
  std::mutex mutex;
  std::atomic<std::size_t> next{0};
  auto on_turn = [&](const agent::TurnEvent& event) {
    if (!say) return;
    std::lock_guard lock(mutex);
    say(agent::describe(event));
  };
  std::vector<std::jthread> workers;
  int threads = std::max(1, std::min<int>(options.concurrency, static_cast<int>(selected.size())));
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      agent::TrajectoryRunner runner(directory, *teacher.provider, evaluate, agent_options,
                                     on_turn);
      for (std::size_t i = next++; i < selected.size(); i = next++) {
        try {
          prompt::Prompt prompt{.system = selected[i].system_prompt,
                                .task = repair_request(selected[i])};
          results[i] = runner.run(specs[i], prompt, std::move(earlier[i]));
        } catch (const std::exception& e) {
          std::lock_guard lock(mutex);
          errors.push_back(fmt::format("{}: {}", selected[i].id, e.what()));
        }
      }
    });
  }
  workers.clear();  // joins every worker before the results are read
  return results;
}

}  // namespace

util::Expected<RepairSummary> repair_rows(const FixitFolder& folder,
                                          const std::vector<MinedRow>& selected,
                                          const std::vector<task::Task>& suite,
                                          const Teacher& teacher, const agent::EvaluateFn& evaluate,
                                          const RepairOptions& options,
                                          const std::function<void(std::string_view)>& say) {
  auto specs = repair_specs(selected, suite, teacher);
  if (!specs) return specs.error();
  auto directory = agent::RunDirectory::open(folder.repair_dir());
  if (!directory) return directory.error();
  if (auto error = record_session(*directory, *specs, selected, teacher, options)) return *error;
  auto earlier = earlier_trajectories(*directory, *specs);
  if (!earlier) return earlier.error();

  RepairSummary summary;
  for (const auto& trajectory : *earlier) summary.resumed += trajectory ? 1 : 0;
  if (say)
    say(fmt::format("repair: {} row(s), {} with a trajectory from before, teacher {}, {} thread(s)",
                    selected.size(), summary.resumed, teacher.name, options.concurrency));
  auto results = run_repairs(*directory, selected, *specs, std::move(*earlier), teacher, evaluate,
                             options, say, summary.errors);
  for (std::size_t i = 0; i < selected.size(); ++i) {
    if (!results[i]) continue;
    summary.rows.push_back(repair_row_of(selected[i], teacher, *results[i], options));
    const auto& row = summary.rows.back();
    if (say && row.status == RepairStatus::kNotRepaired)
      say(fmt::format("{}: not repaired: {}", row.mined_id, row.reason));
  }
  return summary;
}

}  // namespace ptxbench::fixit
