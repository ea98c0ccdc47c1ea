#include "ptxbench/agent/run_directory.hpp"

#include <fmt/format.h>

#include "ptxbench/util/check.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/hash.hpp"
#include "ptxbench/util/json_text.hpp"

namespace ptxbench::agent {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

fs::path sidecar_path(const fs::path& response) {
  return response.parent_path() / ("." + response.stem().string() + ".json");
}

}  // namespace

util::Expected<RunDirectory> RunDirectory::open(const fs::path& root) {
  std::error_code error;
  fs::create_directories(root / "trajectories", error);
  if (error) return util::make_error(fmt::format("{}: {}", root.string(), error.message()));
  fs::create_directories(root / "responses", error);
  if (error) return util::make_error(fmt::format("{}: {}", root.string(), error.message()));
  auto lock = util::FolderLock::acquire(root, "run directory");
  if (!lock) return lock.error();
  return RunDirectory(root, std::move(*lock));
}

fs::path RunDirectory::trajectory_path(const std::string& id) const {
  return root_ / "trajectories" / (id + ".json");
}

fs::path RunDirectory::response_path(const std::string& id, int turn) const {
  return root_ / "responses" / id / fmt::format("turn-{}.md", turn);
}

util::Expected<std::optional<Json>> RunDirectory::read_run_json() const {
  if (!fs::exists(run_json_path())) return std::optional<Json>();
  auto text = util::read_file(run_json_path());
  if (!text) return text.error();
  Json json = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return util::make_error(run_json_path().string() + ": not valid JSON");
  return std::optional<Json>(std::move(json));
}

void RunDirectory::write_run_json(const Json& run) const {
  util::write_file_atomic(run_json_path(), util::dump_json(run, 2) + "\n");
}

util::Expected<std::optional<Trajectory>> RunDirectory::load_trajectory(
    const std::string& id) const {
  fs::path path = trajectory_path(id);
  if (!fs::exists(path)) return std::optional<Trajectory>();
  auto text = util::read_file(path);
  if (!text) return text.error();
  Json json = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return util::make_error(path.string() + ": not valid JSON");
  util::restore_bytes(json);
  auto trajectory = trajectory_from_json(json);
  if (!trajectory) return util::make_error(path.string() + ": " + trajectory.error().message);
  return std::optional<Trajectory>(std::move(*trajectory));
}

void RunDirectory::save_trajectory(const Trajectory& trajectory) const {
  util::write_file_atomic(trajectory_path(trajectory.info.id),
                          util::dump_json(to_json(trajectory), 1) + "\n");
}

void RunDirectory::save_reply(const std::string& id, int turn, const model::Reply& reply) const {
  fs::path response = response_path(id, turn);
  // The details first: a reply file without them is never taken for a complete one.
  Json details{{"content_hash", util::hash_hex(reply.content)},
               {"reasoning_content",
                reply.reasoning_content ? Json(*reply.reasoning_content) : Json(nullptr)},
               {"usage", to_json(reply.usage)},
               {"latency_s", reply.latency_s},
               {"finish_reason", reply.finish_reason},
               {"model", reply.model},
               {"source", reply.source},
               {"attempts", reply.attempts}};
  util::write_file_atomic(sidecar_path(response), util::dump_json(details) + "\n");
  util::write_file_atomic(response, reply.content);
}

std::optional<model::Reply> RunDirectory::load_saved_reply(const std::string& id, int turn) const {
  fs::path response = response_path(id, turn);
  auto content = util::read_file(response);
  auto details_text = util::read_file(sidecar_path(response));
  if (!content || !details_text) return std::nullopt;
  Json details = Json::parse(*details_text, nullptr, /*allow_exceptions=*/false);
  util::restore_bytes(details);
  if (!details.is_object() || !details.contains("content_hash") ||
      details["content_hash"] != util::hash_hex(*content)) {
    return std::nullopt;  // written by another turn attempt: ask the model again
  }
  model::Reply reply{.content = std::move(*content),
                     .latency_s = details.value("latency_s", 0.0),
                     .finish_reason = details.value("finish_reason", ""),
                     .model = details.value("model", ""),
                     .source = details.value("source", ""),
                     .attempts = details.value("attempts", 1)};
  if (details.contains("reasoning_content") && details["reasoning_content"].is_string()) {
    reply.reasoning_content = details["reasoning_content"].get<std::string>();
  }
  if (details.contains("usage")) reply.usage = usage_from_json(details["usage"]);
  return reply;
}

}  // namespace ptxbench::agent
