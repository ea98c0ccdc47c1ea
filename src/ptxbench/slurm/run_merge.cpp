#include "ptxbench/slurm/run_merge.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/staged_folder.hpp"

namespace ptxbench::slurm {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

util::Expected<json> read_json(const fs::path& path) {
  auto text = util::read_file(path, util::kMaxRecordFileBytes);
  if (!text) return text.error();
  auto parsed = json::parse(*text, nullptr, false);
  if (parsed.is_discarded()) return util::make_error(path.string() + ": not valid JSON");
  return parsed;
}

// "FILE: FIELD: problem" when `field` of `object` is present with another type than `is_type`.
bool wrong_type(const json& object, const char* field, bool (json::*is_type)() const noexcept) {
  return object.contains(field) && !(object.at(field).*is_type)();
}

// "PATH: what" as an error.
auto problem_in(const fs::path& path) {
  return [path](const std::string& what) {
    return util::make_error(fmt::format("{}: {}", path.string(), what));
  };
}

// What merge reads of a run.json, checked before anything is read from it.
util::Expected<json> read_run(const fs::path& path) {
  auto run = read_json(path);
  if (!run) return run;
  const auto problem = problem_in(path);
  if (!run->is_object()) return problem("expected a JSON object");
  for (const char* field : {"config", "grid"}) {
    if (!run->contains(field)) return problem(fmt::format("{}: missing", field));
    if (!run->at(field).is_object())
      return problem(fmt::format("{}: expected a JSON object", field));
    if (wrong_type(run->at(field), "tasks", &json::is_array))
      return problem(fmt::format("{}.tasks: expected an array", field));
  }
  for (const char* field : {"sessions", "merged_from"})
    if (wrong_type(*run, field, &json::is_array))
      return problem(fmt::format("{}: expected an array", field));
  return run;
}

// What merge reads of a trajectory: its info.status and the number of its turns.
util::Expected<json> read_trajectory(const fs::path& path) {
  auto trajectory = read_json(path);
  if (!trajectory) return trajectory;
  const auto problem = problem_in(path);
  if (!trajectory->is_object()) return problem("expected a JSON object");
  if (wrong_type(*trajectory, "info", &json::is_object))
    return problem("info: expected a JSON object");
  if (trajectory->contains("info") &&
      wrong_type(trajectory->at("info"), "status", &json::is_string))
    return problem("info.status: expected a string");
  if (wrong_type(*trajectory, "turns", &json::is_array)) return problem("turns: expected an array");
  return trajectory;
}

// The part of a run's config that must agree across shards: all but its tasks.
json shared_part(json config) {
  for (const char* key : {"tasks"}) config.erase(key);
  return config;
}

// The first key whose value differs, for the error message.
std::string first_difference(const json& a, const json& b) {
  for (const auto& [key, value] : a.items()) {
    if (!b.contains(key) || b.at(key) != value) return key;
  }
  for (const auto& [key, value] : b.items()) {
    if (!a.contains(key)) return key;
  }
  return "(none)";
}

// Completed turns, and 1 more for a finished trajectory at the same count.
std::pair<std::size_t, int> progress_of(const json& trajectory) {
  const auto turns = trajectory.contains("turns") ? trajectory.at("turns").size() : 0;
  const auto status =
      trajectory.contains("info") ? trajectory.at("info").value("status", "") : std::string();
  return {turns, status == "running" ? 0 : 1};
}

void copy_missing_files(const fs::path& from, const fs::path& to) {
  if (!fs::is_directory(from)) return;
  for (const auto& entry : fs::recursive_directory_iterator(from)) {
    const auto target = to / fs::relative(entry.path(), from);
    if (entry.is_directory()) {
      fs::create_directories(target);
    } else if (!fs::exists(target)) {
      if (auto text = util::read_file(entry.path())) util::write_file_atomic(target, *text);
    }
  }
}

// Everything merge reads, read and checked before anything is written: the shards' run.json
// files (their configurations agree but for the tasks), the output's run.json when it exists,
// and each shard's trajectories.
struct MergeInputs {
  std::vector<json> runs;  // one per shard
  std::optional<json> existing;
  std::vector<std::vector<std::pair<fs::path, json>>> trajectories;  // per shard: name, content
};

util::Expected<MergeInputs> read_inputs(const std::vector<fs::path>& shards, const fs::path& out) {
  MergeInputs inputs;
  for (const auto& shard : shards) {
    if (!fs::exists(shard / "run.json"))
      return util::make_error(fmt::format("{}: not a run (no run.json)", shard.string()));
    auto run = read_run(shard / "run.json");
    if (!run) return run.error();
    inputs.runs.push_back(std::move(*run));
  }
  if (fs::exists(out / "run.json")) {
    auto run = read_run(out / "run.json");
    if (!run) return run.error();
    inputs.existing = std::move(*run);
  }
  const auto& existing = inputs.existing;
  const json reference =
      shared_part(existing ? existing->at("config") : inputs.runs.front().at("config"));
  const auto reference_name =
      existing ? (out / "run.json").string() : (shards.front() / "run.json").string();
  for (std::size_t i = 0; i < inputs.runs.size(); ++i) {
    const auto mine = shared_part(inputs.runs[i].at("config"));
    if (mine != reference)
      return util::make_error(
          fmt::format("{}/run.json: config: {} differs from {}; shards of one run must share their "
                      "configuration (all but the tasks)",
                      shards[i].string(), first_difference(mine, reference), reference_name));
  }
  inputs.trajectories.resize(shards.size());
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const auto from = shards[i] / "trajectories";
    if (!fs::is_directory(from)) continue;
    for (const auto& entry : fs::directory_iterator(from)) {
      if (entry.path().extension() != ".json") continue;
      auto incoming = read_trajectory(entry.path());
      if (!incoming) return incoming.error();
      inputs.trajectories[i].emplace_back(entry.path().filename(), std::move(*incoming));
    }
  }
  return inputs;
}

// A shard's trajectories into the folder: each one that is new or further along than the copy
// there (more turns, or finished at the same count).
void merge_trajectories(const std::vector<std::pair<fs::path, json>>& trajectories,
                        const fs::path& into, MergeSummary& summary) {
  for (const auto& [name, incoming] : trajectories) {
    const auto target = into / "trajectories" / name;
    if (fs::exists(target)) {
      auto current = read_trajectory(target);
      if (current && progress_of(*current) >= progress_of(incoming)) {
        ++summary.unchanged;
        continue;
      }
      ++summary.updated;
    } else {
      ++summary.added;
    }
    util::write_file_atomic(target, incoming.dump(2));
  }
}

}  // namespace

util::Expected<MergeSummary> merge_runs(const std::vector<fs::path>& shards, const fs::path& out) {
  if (shards.empty()) return util::make_error("merge: no shard folders given");
  // Check everything before writing anything.
  auto out_folder = util::check_output_folder(out);
  if (!out_folder) return out_folder.error();
  auto inputs = read_inputs(shards, out);
  if (!inputs) return inputs.error();
  const auto& runs = inputs->runs;
  const auto& existing = inputs->existing;

  // The merged folder is built aside and replaces the old one only when complete.
  auto staged = util::StagedFolder::begin(out, util::StagedFolder::Start::kExisting);
  if (!staged) return staged.error();
  const fs::path into = staged->path();
  json merged = existing ? *existing : runs.front();
  json tasks = merged["config"].value("tasks", json::array());
  json grid_tasks = merged["grid"].value("tasks", json::array());
  if (!existing) merged["sessions"] = json::array();
  MergeSummary summary{.shards = shards.size()};
  fs::create_directories(into / "trajectories");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const auto& task : runs[i].at("config").value("tasks", json::array())) {
      if (std::find(tasks.begin(), tasks.end(), task) == tasks.end()) tasks.push_back(task);
      if (std::find(grid_tasks.begin(), grid_tasks.end(), task) == grid_tasks.end())
        grid_tasks.push_back(task);
    }
    for (const auto& session : runs[i].value("sessions", json::array())) {
      json entry = session;
      entry["shard"] = shards[i].filename().string();
      if (std::find(merged["sessions"].begin(), merged["sessions"].end(), entry) ==
          merged["sessions"].end())
        merged["sessions"].push_back(entry);
    }
    merge_trajectories(inputs->trajectories[i], into, summary);
    copy_missing_files(shards[i] / "responses", into / "responses");
  }
  merged["config"]["tasks"] = tasks;
  merged["grid"]["tasks"] = grid_tasks;
  if (!merged.contains("merged_from")) merged["merged_from"] = json::array();
  for (const auto& shard : shards) {
    const json path = fs::absolute(shard).lexically_normal().string();
    auto& from = merged["merged_from"];
    if (std::find(from.begin(), from.end(), path) == from.end()) from.push_back(path);
  }
  util::write_file_atomic(into / "run.json", merged.dump(2));
  auto published = staged->publish();
  if (!published) return published.error();
  return summary;
}

}  // namespace ptxbench::slurm
