// A run's turns as dataset rows: one row per completed turn of every trajectory, flat enough for
// `datasets.load_dataset("json", ...)` (the same keys and types in every row; nulls where a
// value does not exist, and the card declares every column's type, so an export whose nulls are
// all nulls loads with the same schema as one with values). A trajectory's conversation is
// rebuilt from its rows in turn order: system_prompt, task_prompt, then each turn's reply and
// the feedback that followed it. docs/traces.md describes the columns.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::traces {

// Turns judged, after the run, to have gamed the judge (a reviewer's list): entries are code
// hashes or "<trajectory id>#<turn>".
struct ExploitList {
  std::set<std::string> entries;
  bool contains(const std::string& trajectory_id, int turn, const std::string& code_hash) const;
};
// One entry a line; blank lines and '#' comments ignored.
util::Expected<ExploitList> load_exploit_list(const std::filesystem::path& path);

struct TraceRow {
  std::string run;  // the run folder's name
  std::string trajectory_id;
  std::string model, provider, task, arch, context, split;
  int sample = 0;
  int turn = 0;
  std::string system_prompt, task_prompt;  // the conversation's opening messages
  std::string reply;                       // the model's reply of the turn
  std::string reasoning;                   // its reasoning_content; "" when none
  std::optional<std::string> code;         // its extracted candidate; null when it had none
  std::optional<std::string> code_hash;
  std::string feedback;  // the user message sent back after this turn; "" after the last
  std::string verdict;
  std::string message;
  bool correct = false;
  bool passed = false;
  std::vector<std::string> requested_families;
  std::map<std::string, std::int64_t> executed_families;  // measured families only
  std::optional<double> speedup;
  bool exploit = false;
};

std::vector<TraceRow> rows_of(const agent::Trajectory& trajectory, const std::string& run,
                              const ExploitList& exploits);
nlohmann::json to_json(const TraceRow& row);

// The columns' types as a dataset card's `dataset_info:` YAML block (`  features:` onwards).
std::string trace_features_yaml();

}  // namespace ptxbench::traces
