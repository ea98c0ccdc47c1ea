#include "ptxbench/traces/trace_rows.hpp"

#include <fmt/format.h>

#include <sstream>

#include "ptxbench/extract/extract.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::traces {
namespace {

// The assistant message of `turn` (messages carry their turn).
const agent::TrajectoryMessage* reply_of(const agent::Trajectory& trajectory, int turn) {
  for (const auto& message : trajectory.messages) {
    if (message.role == "assistant" && message.turn == turn) return &message;
  }
  return nullptr;
}

// The message sent back after `turn` (a user message of that turn), or "".
std::string feedback_after(const agent::Trajectory& trajectory, int turn) {
  for (const auto& message : trajectory.messages)
    if (message.role == "user" && message.turn == turn) return message.content;
  return "";
}

template <class T>
nlohmann::json or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

bool ExploitList::contains(const std::string& trajectory_id, int turn,
                           const std::string& code_hash) const {
  return entries.contains(fmt::format("{}#{}", trajectory_id, turn)) ||
         (!code_hash.empty() && entries.contains(code_hash));
}

util::Expected<ExploitList> load_exploit_list(const std::filesystem::path& path) {
  auto text = util::read_file(path);
  if (!text) return text.error();
  ExploitList list;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    const auto start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    const auto end = line.find_last_not_of(" \t\r");
    list.entries.insert(line.substr(start, end - start + 1));
  }
  return list;
}

std::vector<TraceRow> rows_of(const agent::Trajectory& trajectory, const std::string& run,
                              const ExploitList& exploits) {
  std::vector<TraceRow> rows;
  const auto& info = trajectory.info;
  std::string system_prompt, task_prompt;
  for (const auto& message : trajectory.messages) {
    if (message.role == "system" && system_prompt.empty()) system_prompt = message.content;
    if (message.role == "user" && !message.turn && task_prompt.empty())
      task_prompt = message.content;
  }
  for (const auto& turn : trajectory.turns) {
    const auto& e = turn.evaluation;
    TraceRow row{.run = run,
                 .trajectory_id = info.id,
                 .model = info.model,
                 .provider = info.provider,
                 .task = info.task,
                 .arch = std::string(arch::to_string(info.arch)),
                 .context = std::string(prompt::to_string(info.context_level)),
                 .split = info.split,
                 .sample = info.sample,
                 .turn = turn.turn,
                 .system_prompt = system_prompt,
                 .task_prompt = task_prompt,
                 .code_hash = turn.code_hash,
                 .feedback = feedback_after(trajectory, turn.turn),
                 .verdict = std::string(eval::to_string(e.verdict)),
                 .message = e.message,
                 .correct = e.correct(),
                 .passed = e.verified(),
                 .speedup = e.headline_speedup()};
    if (const auto* reply = reply_of(trajectory, turn.turn)) {
      row.reply = reply->content;
      row.reasoning = reply->reasoning_content.value_or("");
      if (auto code = extract::extract_code(reply->content)) row.code = *code;
    }
    for (const auto& family : e.families) {
      if (family.requested) row.requested_families.push_back(family.family);
      if (family.executed_count) row.executed_families[family.family] = *family.executed_count;
    }
    row.exploit = exploits.contains(info.id, turn.turn, turn.code_hash.value_or(""));
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::json to_json(const TraceRow& row) {
  // executed_families as a list of {family, count}: a struct column with fixed keys, where a
  // map would give every row a different schema.
  nlohmann::json executed = nlohmann::json::array();
  for (const auto& [family, count] : row.executed_families)
    executed.push_back({{"family", family}, {"count", count}});
  return {{"run", row.run},
          {"trajectory_id", row.trajectory_id},
          {"model", row.model},
          {"provider", row.provider},
          {"task", row.task},
          {"arch", row.arch},
          {"context", row.context},
          {"split", row.split},
          {"sample", row.sample},
          {"turn", row.turn},
          {"system_prompt", row.system_prompt},
          {"task_prompt", row.task_prompt},
          {"reply", row.reply},
          {"reasoning", row.reasoning},
          {"code", or_null(row.code)},
          {"code_hash", or_null(row.code_hash)},
          {"feedback", row.feedback},
          {"verdict", row.verdict},
          {"message", row.message},
          {"correct", row.correct},
          {"passed", row.passed},
          {"requested_families", row.requested_families},
          {"executed_families", executed},
          {"speedup", or_null(row.speedup)},
          {"exploit", row.exploit}};
}

std::string trace_features_yaml() {
  // The same keys, in the same order, as to_json above.
  std::string out = "  features:\n";
  auto column = [&](const char* name, const char* dtype) {
    out += fmt::format("  - name: {}\n    dtype: {}\n", name, dtype);
  };
  for (const char* name :
       {"run", "trajectory_id", "model", "provider", "task", "arch", "context", "split"})
    column(name, "string");
  column("sample", "int64");
  column("turn", "int64");
  for (const char* name : {"system_prompt", "task_prompt", "reply", "reasoning", "code",
                           "code_hash", "feedback", "verdict", "message"})
    column(name, "string");
  column("correct", "bool");
  column("passed", "bool");
  out += "  - name: requested_families\n    list: string\n";
  out +=
      "  - name: executed_families\n    list:\n    - name: family\n      dtype: string\n"
      "    - name: count\n      dtype: int64\n";
  column("speedup", "float64");
  column("exploit", "bool");
  return out;
}

}  // namespace ptxbench::traces
