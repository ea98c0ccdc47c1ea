// Reading a run directory's trajectories for the Fixit stages: the run record, every
// trajectory that parses (and why the others did not), and the parts of a conversation the
// stages take: the opening prompts and the reply of a turn.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::fixit {

struct RunTrajectories {
  nlohmann::json run;                           // run.json
  std::vector<agent::Trajectory> trajectories;  // in file-name order
  std::vector<std::string> problems;            // "<file>: why it was skipped"
  // run.json's config.solutions (a demo run replays files): trajectory id -> the verdict its
  // file declares. Empty for a run of models.
  std::map<std::string, eval::Verdict> declared;
};

// Errors: no run.json, run.json not JSON, a bad config.solutions (`run.json: field: problem`),
// no trajectories/ folder.
util::Expected<RunTrajectories> read_run(const std::filesystem::path& run);

struct OpeningPrompts {
  std::string system;
  std::string task;
};
OpeningPrompts opening_prompts(const agent::Trajectory& trajectory);

// The assistant message of `turn`, or null.
const agent::TrajectoryMessage* reply_of_turn(const agent::Trajectory& trajectory, int turn);

}  // namespace ptxbench::fixit
