#include "ptxbench/slurm/run_merge.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::slurm {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

util::Expected<json> read_json(const fs::path& path) {
  auto text = util::read_file(path);
  if (!text) return text.error();
  auto parsed = json::parse(*text, nullptr, false);
  if (parsed.is_discarded()) return util::make_error(path.string() + ": not valid JSON");
  return parsed;
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
  const auto turns = trajectory.contains("turns") ? trajectory["turns"].size() : 0;
  const auto status = trajectory.contains("info") ? trajectory["info"].value("status", "") : "";
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

}  // namespace

util::Expected<MergeSummary> merge_runs(const std::vector<fs::path>& shards, const fs::path& out) {
  if (shards.empty()) return util::make_error("merge: no shard folders given");
  // Check everything before writing anything.
  std::vector<json> runs;
  for (const auto& shard : shards) {
    auto run = read_json(shard / "run.json");
    if (!run)
      return util::make_error(
          fmt::format("{}: not a run ({})", shard.string(), run.error().message));
    if (!run->contains("config") || !run->contains("grid"))
      return util::make_error(fmt::format("{}/run.json: config, grid: missing", shard.string()));
    runs.push_back(std::move(*run));
  }
  std::optional<json> existing;
  if (fs::exists(out / "run.json")) {
    auto run = read_json(out / "run.json");
    if (!run) return run.error();
    existing = std::move(*run);
  }
  const json reference = shared_part(existing ? existing->at("config") : runs.front().at("config"));
  const auto reference_name =
      existing ? (out / "run.json").string() : (shards.front() / "run.json").string();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto mine = shared_part(runs[i].at("config"));
    if (mine != reference)
      return util::make_error(
          fmt::format("{}/run.json: config: {} differs from {}; shards of one run must share their "
                      "configuration (all but the tasks)",
                      shards[i].string(), first_difference(mine, reference), reference_name));
  }

  json merged = existing ? *existing : runs.front();
  json tasks = merged["config"].value("tasks", json::array());
  json grid_tasks = merged["grid"].value("tasks", json::array());
  if (!existing) merged["sessions"] = json::array();
  MergeSummary summary{.shards = shards.size()};
  fs::create_directories(out / "trajectories");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const auto& task : runs[i]["config"].value("tasks", json::array())) {
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
    const auto from = shards[i] / "trajectories";
    if (fs::is_directory(from)) {
      for (const auto& entry : fs::directory_iterator(from)) {
        if (entry.path().extension() != ".json") continue;
        auto incoming = read_json(entry.path());
        if (!incoming) return incoming.error();
        const auto target = out / "trajectories" / entry.path().filename();
        if (fs::exists(target)) {
          auto current = read_json(target);
          if (current && progress_of(*current) >= progress_of(*incoming)) {
            ++summary.unchanged;
            continue;
          }
          ++summary.updated;
        } else {
          ++summary.added;
        }
        util::write_file_atomic(target, incoming->dump(2));
      }
    }
    copy_missing_files(shards[i] / "responses", out / "responses");
  }
  merged["config"]["tasks"] = tasks;
  merged["grid"]["tasks"] = grid_tasks;
  if (!merged.contains("merged_from")) merged["merged_from"] = json::array();
  for (const auto& shard : shards) {
    const json path = fs::absolute(shard).lexically_normal().string();
    auto& from = merged["merged_from"];
    if (std::find(from.begin(), from.end(), path) == from.end()) from.push_back(path);
  }
  util::write_file_atomic(out / "run.json", merged.dump(2));
  return summary;
}

}  // namespace ptxbench::slurm
