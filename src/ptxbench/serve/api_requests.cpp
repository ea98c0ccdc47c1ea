#include "ptxbench/serve/api_requests.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "ptxbench/util/field_reader.hpp"

namespace ptxbench::serve {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxTurns = 1000;

// The body as a JSON object; a key given twice is refused (JSON would keep one of them).
util::Expected<json> parse_body(const std::string& body) {
  std::vector<std::pair<std::string, std::string>> duplicates;
  json parsed;
  try {
    parsed = util::parse_json_strict(body, duplicates);
  } catch (const json::exception&) {
    return util::make_error("body: not valid JSON");
  }
  if (!parsed.is_object()) return util::make_error("body: expected a JSON object");
  if (!duplicates.empty()) {
    const auto& [object, key] = duplicates.front();
    return util::make_error(
        fmt::format("{}: given twice", object.empty() ? key : object + "." + key));
  }
  return parsed;
}

util::Expected<arch::Arch> parse_arch(const std::optional<std::string>& name) {
  if (!name) return util::make_error("arch: required (hopper or blackwell)");
  auto arch = arch::parse(*name);
  if (!arch) return util::make_error(fmt::format("arch: {}: expected hopper or blackwell", *name));
  return *arch;
}

}  // namespace

util::Expected<Job> parse_submission(const std::string& body) {
  auto object = parse_body(body);
  if (!object) return object.error();
  util::FieldReader fields(*object, "");
  std::optional<std::string> task, arch, code, reply, source_name;
  fields.read("task", task);
  fields.read("arch", arch);
  fields.read("code", code);
  fields.read("reply", reply);
  fields.read("source_name", source_name);
  if (const auto& problem = fields.finish(); !problem.empty()) return util::make_error(problem);
  if (!task) return util::make_error("task: required");
  auto parsed_arch = parse_arch(arch);
  if (!parsed_arch) return parsed_arch.error();
  if (code.has_value() == reply.has_value())
    return util::make_error("code, reply: give exactly one of them");
  const bool is_reply = reply.has_value();
  return Job{.task = *task,
             .arch = *parsed_arch,
             .text = is_reply ? *reply : *code,
             .is_markdown = is_reply,
             .source_name = source_name.value_or(is_reply ? "reply.md" : "kernel.cu")};
}

util::Expected<ResetRequest> parse_reset(const std::string& body) {
  auto object = parse_body(body);
  if (!object) return object.error();
  util::FieldReader fields(*object, "");
  ResetRequest request;
  std::optional<std::string> arch, split, context;
  fields.read("arch", arch);
  fields.read("task", request.task);
  fields.read("split", split);
  fields.read("context", context);
  fields.read("seed", request.seed);
  fields.read_integer("max_turns", 1, kMaxTurns, request.max_turns);
  fields.read("target_speedup", request.target_speedup);
  if (fields.ok() && request.target_speedup && !(*request.target_speedup > 0))
    fields.fail("target_speedup", "expected a number > 0");
  fields.mark("reward");  // its own reader below
  if (const auto& problem = fields.finish(); !problem.empty()) return util::make_error(problem);

  auto parsed_arch = parse_arch(arch);
  if (!parsed_arch) return parsed_arch.error();
  request.arch = *parsed_arch;
  request.split = split.value_or("train");
  if (context) {
    auto level = prompt::parse_context_level(*context);
    if (!level)
      return util::make_error(
          fmt::format("context: {}: expected none, isa, guide, examples or retrieval", *context));
    request.context = *level;
  }
  if (object->contains("reward")) {
    auto reward = reward_config_from_json((*object)["reward"], "reward");
    if (!reward) return reward.error();
    request.reward = *reward;
  }
  return request;
}

util::Expected<StepRequest> parse_step(const std::string& body) {
  auto object = parse_body(body);
  if (!object) return object.error();
  util::FieldReader fields(*object, "");
  StepRequest request;
  fields.require("session", request.session);
  fields.require("reply", request.reply);
  if (const auto& problem = fields.finish(); !problem.empty()) return util::make_error(problem);
  return request;
}

}  // namespace ptxbench::serve
