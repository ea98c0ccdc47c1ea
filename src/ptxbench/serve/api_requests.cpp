#include "ptxbench/serve/api_requests.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace ptxbench::serve {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxTurns = 1000;

util::Expected<json> parse_object(const std::string& body,
                                  std::initializer_list<std::string_view> allowed) {
  auto parsed = json::parse(body, nullptr, false);
  if (parsed.is_discarded()) return util::make_error("body: not valid JSON");
  if (!parsed.is_object()) return util::make_error("body: expected a JSON object");
  for (const auto& [key, value] : parsed.items()) {
    bool known = false;
    for (auto name : allowed) known = known || key == name;
    if (!known) return util::make_error(fmt::format("{}: unknown field", key));
  }
  return parsed;
}

// Reads an optional string field; an error when present with another type.
util::Expected<std::optional<std::string>> string_field(const json& object, const char* name) {
  if (!object.contains(name)) return std::optional<std::string>();
  if (!object[name].is_string())
    return util::make_error(fmt::format("{}: expected a string", name));
  return std::optional<std::string>(object[name].get<std::string>());
}

util::Expected<arch::Arch> arch_field(const json& object) {
  auto name = string_field(object, "arch");
  if (!name) return name.error();
  if (!*name) return util::make_error("arch: required (hopper or blackwell)");
  auto arch = arch::parse(**name);
  if (!arch) return util::make_error(fmt::format("arch: {}: expected hopper or blackwell", **name));
  return *arch;
}

}  // namespace

util::Expected<Job> parse_submission(const std::string& body) {
  auto object = parse_object(body, {"task", "arch", "code", "reply", "source_name"});
  if (!object) return object.error();
  auto task = string_field(*object, "task");
  if (!task) return task.error();
  if (!*task) return util::make_error("task: required");
  auto arch = arch_field(*object);
  if (!arch) return arch.error();
  auto code = string_field(*object, "code");
  if (!code) return code.error();
  auto reply = string_field(*object, "reply");
  if (!reply) return reply.error();
  if (code->has_value() == reply->has_value())
    return util::make_error("code, reply: give exactly one of them");
  auto source_name = string_field(*object, "source_name");
  if (!source_name) return source_name.error();
  const bool is_reply = reply->has_value();
  return Job{.task = **task,
             .arch = *arch,
             .text = is_reply ? **reply : **code,
             .is_markdown = is_reply,
             .source_name = source_name->value_or(is_reply ? "reply.md" : "kernel.cu")};
}

util::Expected<ResetRequest> parse_reset(const std::string& body) {
  auto object = parse_object(
      body, {"task", "split", "arch", "context", "seed", "max_turns", "target_speedup", "reward"});
  if (!object) return object.error();
  ResetRequest request;
  auto arch = arch_field(*object);
  if (!arch) return arch.error();
  request.arch = *arch;
  auto task = string_field(*object, "task");
  if (!task) return task.error();
  request.task = *task;
  auto split = string_field(*object, "split");
  if (!split) return split.error();
  request.split = split->value_or("train");
  auto context = string_field(*object, "context");
  if (!context) return context.error();
  if (*context) {
    auto level = prompt::parse_context_level(**context);
    if (!level)
      return util::make_error(
          fmt::format("context: {}: expected none, isa, guide, examples or retrieval", **context));
    request.context = *level;
  }
  const auto& o = *object;
  if (o.contains("seed")) {
    if (!o["seed"].is_number_unsigned())
      return util::make_error("seed: expected a whole number >= 0");
    request.seed = o["seed"].get<std::uint64_t>();
  }
  if (o.contains("max_turns")) {
    // Read at full width before narrowing: 4294967297 must not wrap to 1.
    const auto& turns = o["max_turns"];
    const bool in_range = turns.is_number_unsigned()
                              ? turns.get<std::uint64_t>() <= kMaxTurns
                              : turns.is_number_integer() && turns.get<std::int64_t>() >= 1 &&
                                    turns.get<std::int64_t>() <= kMaxTurns;
    if (!in_range || turns.get<std::int64_t>() < 1)
      return util::make_error(
          fmt::format("max_turns: expected a whole number from 1 to {}", kMaxTurns));
    request.max_turns = static_cast<int>(turns.get<std::int64_t>());
  }
  if (o.contains("target_speedup")) {
    if (!o["target_speedup"].is_number() || !(o["target_speedup"].get<double>() > 0) ||
        !std::isfinite(o["target_speedup"].get<double>()))
      return util::make_error("target_speedup: expected a number > 0");
    request.target_speedup = o["target_speedup"].get<double>();
  }
  if (o.contains("reward")) {
    auto reward = reward_config_from_json(o["reward"], "reward");
    if (!reward) return reward.error();
    request.reward = *reward;
  }
  return request;
}

util::Expected<StepRequest> parse_step(const std::string& body) {
  auto object = parse_object(body, {"session", "reply"});
  if (!object) return object.error();
  auto session = string_field(*object, "session");
  if (!session) return session.error();
  if (!*session) return util::make_error("session: required");
  auto reply = string_field(*object, "reply");
  if (!reply) return reply.error();
  if (!*reply) return util::make_error("reply: required");
  return StepRequest{.session = **session, .reply = **reply};
}

}  // namespace ptxbench::serve
