#include "ptxbench/fixit/run_trajectories.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ptxbench/util/field_reader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::fixit {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

// config.solutions of run.json, entries {id, expect, reply}; the first problem as
// "config.solutions[N].FIELD: problem".
util::Expected<std::map<std::string, eval::Verdict>> declared_verdicts(const Json& run) {
  std::map<std::string, eval::Verdict> out;
  if (!run.is_object()) return util::make_error("expected a mapping");
  if (!run.contains("config") || run["config"].is_null()) return out;
  const Json& config = run["config"];
  if (!config.is_object()) return util::make_error("config: expected a mapping");
  if (!config.contains("solutions") || config["solutions"].is_null()) return out;
  const Json& solutions = config["solutions"];
  if (!solutions.is_array()) return util::make_error("config.solutions: expected a list");
  for (std::size_t i = 0; i < solutions.size(); ++i) {
    util::FieldReader read(solutions[i], fmt::format("config.solutions[{}].", i));
    std::string id, expect, reply;
    read.require("id", id);
    read.require("expect", expect);
    read.read("reply", reply);  // the replayed file, for the reader of run.json
    const auto verdict = eval::parse_verdict(expect);
    if (read.ok() && !verdict) read.fail("expect", fmt::format("unknown verdict '{}'", expect));
    if (const auto& problem = read.finish(); !problem.empty()) return util::make_error(problem);
    out[id] = *verdict;
  }
  return out;
}

}  // namespace

util::Expected<RunTrajectories> read_run(const fs::path& run) {
  auto run_text = util::read_file(run / "run.json");
  if (!run_text)
    return util::make_error(fmt::format("{}: not a run directory (no run.json)", run.string()));
  RunTrajectories out{.run = Json::parse(*run_text, nullptr, false)};
  if (out.run.is_discarded())
    return util::make_error((run / "run.json").string() + ": not valid JSON");
  auto declared = declared_verdicts(out.run);
  if (!declared)
    return util::make_error((run / "run.json").string() + ": " + declared.error().message);
  out.declared = std::move(*declared);
  if (!fs::is_directory(run / "trajectories"))
    return util::make_error(fmt::format("{}: no trajectories/ folder", run.string()));
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(run / "trajectories")) {
    // Skips the temporary files of an atomic write in progress.
    if (entry.path().extension() == ".json" && !entry.path().filename().string().starts_with("."))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    auto text = util::read_file(file);
    if (!text) {
      out.problems.push_back(text.error().message);
      continue;
    }
    Json json = Json::parse(*text, nullptr, false);
    if (json.is_discarded()) {
      out.problems.push_back(file.string() + ": not valid JSON");
      continue;
    }
    auto trajectory = agent::trajectory_from_json(json);
    if (!trajectory) {
      out.problems.push_back(fmt::format("{}: {}", file.string(), trajectory.error().message));
      continue;
    }
    out.trajectories.push_back(std::move(*trajectory));
  }
  return out;
}

OpeningPrompts opening_prompts(const agent::Trajectory& trajectory) {
  OpeningPrompts out;
  for (const auto& message : trajectory.messages) {
    if (message.role == "system" && out.system.empty()) out.system = message.content;
    if (message.role == "user" && !message.turn && out.task.empty()) out.task = message.content;
  }
  return out;
}

const agent::TrajectoryMessage* reply_of_turn(const agent::Trajectory& trajectory, int turn) {
  for (const auto& message : trajectory.messages)
    if (message.role == "assistant" && message.turn == turn) return &message;
  return nullptr;
}

}  // namespace ptxbench::fixit
