#include "ptxbench/agent/trajectory.hpp"

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <ctime>

#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/util/field_reader.hpp"

namespace ptxbench::agent {
namespace {

using Json = nlohmann::json;

constexpr std::array<std::string_view, 3> kStatusNames{"running", "finished", "failed"};

Json optional_json(const std::optional<std::int64_t>& value) {
  return value ? Json(*value) : Json(nullptr);
}

std::optional<std::int64_t> optional_int(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

Json info_to_json(const TrajectoryInfo& info) {
  Json json{{"id", info.id},
            {"model", info.model},
            {"provider", info.provider},
            {"task", info.task},
            {"arch", arch::to_string(info.arch)},
            {"context_level", prompt::to_string(info.context_level)},
            {"sample", info.sample},
            {"split", info.split},
            {"max_turns", info.max_turns},
            {"status", to_string(info.status)},
            {"exit_status", info.exit_status.empty() ? Json(nullptr) : Json(info.exit_status)},
            {"ptxbench_version", info.ptxbench_version},
            {"created_at", info.created_at},
            {"updated_at", info.updated_at}};
  if (!info.error.empty()) json["error"] = info.error;
  return json;
}

// Throws nlohmann exceptions or std::invalid_argument; the caller turns them into an Error.
TrajectoryInfo info_from_json(const Json& json) {
  TrajectoryInfo info;
  info.id = json.at("id").get<std::string>();
  info.model = json.at("model").get<std::string>();
  info.provider = json.value("provider", "");
  info.task = json.at("task").get<std::string>();
  auto arch = arch::parse(json.at("arch").get<std::string>());
  if (!arch) throw std::invalid_argument("info.arch: unknown arch");
  info.arch = *arch;
  auto level = prompt::parse_context_level(json.at("context_level").get<std::string>());
  if (!level) throw std::invalid_argument("info.context_level: unknown level");
  info.context_level = *level;
  info.sample = json.at("sample").get<int>();
  info.split = json.value("split", "train");
  info.max_turns = json.at("max_turns").get<int>();
  auto status = parse_trajectory_status(json.at("status").get<std::string>());
  if (!status) throw std::invalid_argument("info.status: unknown status");
  info.status = *status;
  if (json.contains("exit_status") && json["exit_status"].is_string()) {
    info.exit_status = json["exit_status"].get<std::string>();
  }
  info.error = json.value("error", "");
  info.ptxbench_version = json.value("ptxbench_version", "");
  info.created_at = json.value("created_at", "");
  info.updated_at = json.value("updated_at", "");
  return info;
}

Json message_to_json(const TrajectoryMessage& message) {
  Json json{{"role", message.role}, {"content", message.content}};
  if (message.reasoning_content) json["reasoning_content"] = *message.reasoning_content;
  Json extra = message.extra;
  if (message.turn) extra["turn"] = *message.turn;
  if (!extra.empty()) json["extra"] = std::move(extra);
  return json;
}

TrajectoryMessage message_from_json(const Json& json) {
  TrajectoryMessage message{.role = json.at("role").get<std::string>(),
                            .content = json.at("content").get<std::string>()};
  if (json.contains("reasoning_content") && json["reasoning_content"].is_string()) {
    message.reasoning_content = json["reasoning_content"].get<std::string>();
  }
  if (json.contains("extra") && json["extra"].is_object()) {
    message.extra = json["extra"];
    if (auto turn = message.extra.find("turn"); turn != message.extra.end()) {
      if (auto problem = util::value_problem<int>(*turn))
        throw std::invalid_argument("extra.turn: " + *problem);
      message.turn = turn->get<int>();
      message.extra.erase("turn");
    }
  }
  return message;
}

Json turn_to_json(const TurnRecord& turn) {
  return {{"turn", turn.turn},
          {"usage", to_json(turn.usage)},
          {"latency_s", turn.latency_s},
          {"cost_usd", turn.cost_usd ? Json(*turn.cost_usd) : Json(nullptr)},
          {"code_hash", turn.code_hash ? Json(*turn.code_hash) : Json(nullptr)},
          {"evaluation", eval::to_json(turn.evaluation)},
          {"feedback", turn.feedback}};
}

TurnRecord turn_from_json(const Json& json) {
  TurnRecord turn;
  turn.turn = json.at("turn").get<int>();
  turn.usage = usage_from_json(json.at("usage"));
  turn.latency_s = json.value("latency_s", 0.0);
  if (json.contains("cost_usd") && json["cost_usd"].is_number()) {
    turn.cost_usd = json["cost_usd"].get<double>();
  }
  if (json.contains("code_hash") && json["code_hash"].is_string()) {
    turn.code_hash = json["code_hash"].get<std::string>();
  }
  auto evaluation = eval::evaluation_from_json(json.at("evaluation"));
  if (!evaluation) throw std::invalid_argument("evaluation: " + evaluation.error().message);
  turn.evaluation = std::move(*evaluation);
  turn.feedback = json.value("feedback", "");
  return turn;
}

}  // namespace

std::string sanitize_id_part(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '_' || c == '-';
    if (!keep) c = '-';
  }
  return out;
}

std::string trajectory_id(std::string_view model, std::string_view task, arch::Arch arch,
                          prompt::ContextLevel context, int sample) {
  return sanitize_id_part(fmt::format("{}__{}__{}__{}__s{}", model, task, arch::to_string(arch),
                                      prompt::to_string(context), sample));
}

std::string_view to_string(TrajectoryStatus status) {
  return kStatusNames.at(static_cast<std::size_t>(status));
}

std::optional<TrajectoryStatus> parse_trajectory_status(std::string_view name) {
  for (std::size_t i = 0; i < kStatusNames.size(); ++i) {
    if (kStatusNames[i] == name) return static_cast<TrajectoryStatus>(i);
  }
  return std::nullopt;
}

Json to_json(const model::Usage& usage) {
  return {{"prompt_tokens", optional_json(usage.prompt_tokens)},
          {"completion_tokens", optional_json(usage.completion_tokens)},
          {"reasoning_tokens", optional_json(usage.reasoning_tokens)}};
}

model::Usage usage_from_json(const Json& json) {
  if (!json.is_object()) return {};
  return model::Usage{.prompt_tokens = optional_int(json, "prompt_tokens"),
                      .completion_tokens = optional_int(json, "completion_tokens"),
                      .reasoning_tokens = optional_int(json, "reasoning_tokens")};
}

Json to_json(const Trajectory& trajectory) {
  Json messages = Json::array();
  for (const auto& message : trajectory.messages) messages.push_back(message_to_json(message));
  Json turns = Json::array();
  for (const auto& turn : trajectory.turns) turns.push_back(turn_to_json(turn));
  return {{"trajectory_format", kTrajectoryFormat},
          {"ptxbench_format", kPtxbenchFormat},
          {"info", info_to_json(trajectory.info)},
          {"messages", std::move(messages)},
          {"turns", std::move(turns)}};
}

util::Expected<Trajectory> trajectory_from_json(const Json& json) {
  try {
    if (!json.is_object()) return util::make_error("trajectory: expected a JSON object");
    int format = json.at("ptxbench_format").get<int>();
    if (format != kPtxbenchFormat) {
      return util::make_error(
          fmt::format("ptxbench_format {} (this build reads {})", format, kPtxbenchFormat));
    }
    Trajectory trajectory;
    trajectory.info = info_from_json(json.at("info"));
    for (const auto& message : json.at("messages")) {
      trajectory.messages.push_back(message_from_json(message));
    }
    for (const auto& turn : json.at("turns")) trajectory.turns.push_back(turn_from_json(turn));
    return trajectory;
  } catch (const std::exception& e) {
    return util::make_error(std::string("trajectory: ") + e.what());
  }
}

}  // namespace ptxbench::agent
