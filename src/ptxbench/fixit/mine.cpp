#include "ptxbench/fixit/mine.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/extract/extract.hpp"
#include "ptxbench/fixit/run_trajectories.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/hash.hpp"

namespace ptxbench::fixit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using eval::Verdict;

// The file a replayed reply came from, when the trajectory recorded one as text (a trajectory
// file is input: another type is ignored rather than thrown).
std::string reply_source(const agent::TrajectoryMessage& reply) {
  const auto it = reply.extra.find("source");
  return it != reply.extra.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string error_text_of(const eval::Evaluation& evaluation) {
  std::string text = evaluation.message;
  for (const auto& stage : evaluation.stages) {
    if (stage.status == eval::StageStatus::kFailed && !stage.message.empty()) {
      text += "\n" + stage.message;
    }
  }
  return text;
}

bool passes_filters(const agent::Trajectory& trajectory, const agent::TurnRecord& turn,
                    Verdict kind, const MineFilters& filters) {
  if (!filters.verdicts.empty() && !filters.verdicts.contains(kind)) return false;
  if (!filters.turns.empty() && !filters.turns.contains(turn.turn)) return false;
  if (!filters.contexts.empty() && !filters.contexts.contains(trajectory.info.context_level))
    return false;
  if (!filters.tasks.empty() && !matches_selector(trajectory.info.task, filters.tasks))
    return false;
  if (!filters.models.empty() && !matches_selector(trajectory.info.model, filters.models))
    return false;
  return true;
}

}  // namespace

bool matches_selector(std::string_view name, const std::vector<std::string>& selectors) {
  std::string text(name);
  return std::any_of(selectors.begin(), selectors.end(), [&](const std::string& selector) {
    return ::fnmatch(selector.c_str(), text.c_str(), 0) == 0;
  });
}

bool is_minable_failure(Verdict verdict) {
  switch (verdict) {
    case Verdict::kForbidden:
    case Verdict::kCompileError:
    case Verdict::kInstructionsAbsent:
    case Verdict::kSanitizerError:
    case Verdict::kRuntimeError:
    case Verdict::kTimeout:
    case Verdict::kIncorrectShape:
    case Verdict::kIncorrectNumerical:
    case Verdict::kInputsModified:
    case Verdict::kInstructionsNotExecuted:
      return true;
    default:
      return false;
  }
}

std::string normalize_code(std::string_view code) {
  std::string out;
  bool pending_space = false;
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (code.compare(i, 2, "//") == 0) {
      while (i < code.size() && code[i] != '\n') ++i;
      pending_space = true;
      continue;
    }
    if (code.compare(i, 2, "/*") == 0) {
      std::size_t end = code.find("*/", i + 2);
      i = end == std::string_view::npos ? code.size() : end + 1;
      pending_space = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(code[i]))) {
      pending_space = true;
      continue;
    }
    if (pending_space && !out.empty()) out += ' ';
    pending_space = false;
    out += code[i];
  }
  return out;
}

util::Expected<MineResult> mine_runs(const std::vector<fs::path>& runs,
                                     const std::vector<task::Task>& suite,
                                     const MineFilters& filters) {
  MineResult result;
  std::set<std::string> seen;
  for (const auto& run : runs) {
    auto read = read_run(run);
    if (!read) return read.error();
    result.problems.insert(result.problems.end(), read->problems.begin(), read->problems.end());
    const auto& declared = read->declared;
    for (const auto& trajectory_value : read->trajectories) {
      const agent::Trajectory* trajectory = &trajectory_value;
      const auto& info = trajectory->info;
      const task::Task* task = task::find_task(suite, info.task);
      OpeningPrompts prompts = opening_prompts(*trajectory);
      for (const auto& turn : trajectory->turns) {
        ++result.turns_seen;
        Verdict verdict = turn.evaluation.verdict;
        std::optional<Verdict> expected;
        if (auto it = declared.find(info.id); it != declared.end()) expected = it->second;
        Verdict kind = verdict == Verdict::kNotRun && expected ? *expected : verdict;
        const bool no_code = filters.include_no_code && verdict == Verdict::kNoCode;
        bool failing = is_minable_failure(verdict) || no_code ||
                       (filters.include_not_run && verdict == Verdict::kNotRun && expected &&
                        is_minable_failure(*expected));
        if (!failing || !passes_filters(*trajectory, turn, kind, filters)) continue;
        const auto* reply = reply_of_turn(*trajectory, turn.turn);
        if (reply == nullptr) continue;
        auto code = extract::extract_code(reply->content);
        if (!code && !no_code) continue;
        if (!code) code = "";
        // A reply without code is told apart by its text.
        std::string normalized = normalize_code(no_code ? reply->content : *code);
        std::string arch_name(arch::to_string(info.arch));
        std::string hash = util::Fnv1a64().add(info.task).add(arch_name).add(normalized).hex();
        if (!seen.insert(hash).second) {
          ++result.duplicates;
          continue;
        }
        MinedRow row{.id = "m-" + hash,
                     .source = {.run = run.string(),
                                .trajectory = info.id,
                                .turn = turn.turn,
                                .model = info.model,
                                .reply_file = reply_source(*reply)},
                     .task = info.task,
                     .arch = info.arch,
                     .context = info.context_level,
                     .split = task != nullptr ? task->split : info.split,
                     .verdict = verdict,
                     .expected_verdict = expected,
                     .system_prompt = prompts.system,
                     .task_prompt = prompts.task,
                     .reply = reply->content,
                     .code = *code,
                     .feedback = turn.feedback,
                     .error_text = error_text_of(turn.evaluation),
                     .source_hash = turn.evaluation.source_hash,
                     .normalized_hash = util::hash_hex(normalized)};
        result.rows.push_back(std::move(row));
      }
    }
  }
  return result;
}

Json manifest_of(const MineResult& result) {
  Json counts = Json::object();
  for (const auto& row : result.rows) {
    Json& cell = counts[row.task][std::string(eval::to_string(verdict_kind(row)))];
    std::string turn = std::to_string(row.source.turn);
    cell[turn] = cell.contains(turn) ? cell[turn].get<int>() + 1 : 1;
  }
  return {{"rows", result.rows.size()},
          {"turns_seen", result.turns_seen},
          {"duplicates", result.duplicates},
          {"problems", result.problems},
          {"counts", counts}};
}

}  // namespace ptxbench::fixit
