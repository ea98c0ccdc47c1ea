#include "ptxbench/model/command_provider.hpp"

#include <fmt/format.h>

#include "ptxbench/model/json_fields.hpp"
#include "ptxbench/util/json_text.hpp"
#include "ptxbench/util/utf8.hpp"

namespace ptxbench::model {
namespace {

constexpr std::size_t kStderrExcerptBytes = 500;

std::string tail(const std::string& text, std::size_t bytes) {
  return text.size() <= bytes ? text : "..." + std::string(util::utf8_suffix(text, bytes));
}

}  // namespace

CommandProvider::CommandProvider(ProviderConfig config, std::shared_ptr<util::ProcessRunner> runner)
    : config_(std::move(config)), runner_(std::move(runner)) {}

nlohmann::json CommandProvider::request_json(const Conversation& conversation,
                                             const CallContext& context) const {
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& message : conversation) {
    messages.push_back({{"role", message.role}, {"content", message.content}});
  }
  return {{"model", config_.model},
          {"messages", std::move(messages)},
          {"context",
           {{"trajectory_id", context.trajectory_id},
            {"task", context.task},
            {"arch", context.arch},
            {"context_level", context.context_level},
            {"sample", context.sample},
            {"turn", context.turn}}}};
}

CallResult CommandProvider::complete(const Conversation& conversation, const CallContext& context) {
  util::ProcessSpec spec{.argv = config_.command,
                         .stdin_text = util::dump_json(request_json(conversation, context)),
                         .timeout = config_.timeout,
                         .output_cap_bytes = transport_cap_bytes(config_.max_reply_bytes),
                         .env = {{"PTXBENCH_TRAJECTORY_ID", context.trajectory_id},
                                 {"PTXBENCH_TURN", std::to_string(context.turn)}}};
  util::ProcessResult result = runner_->run(spec);
  if (!result.started) {
    return ProviderError{
        .message = fmt::format("command {}: {}", config_.command.front(), result.describe_end())};
  }
  if (!result.succeeded()) {
    // A deadline may pass another time; a program that exits with an error will do it again.
    return ProviderError{
        .message = fmt::format("command {}: {}: {}", config_.command.front(), result.describe_end(),
                               tail(result.stderr_text, kStderrExcerptBytes)),
        .retryable = result.timed_out};
  }
  if (result.stdout_truncated) {
    return ProviderError{.message = fmt::format("command {}: reply longer than {} bytes",
                                                config_.command.front(),
                                                transport_cap_bytes(config_.max_reply_bytes))};
  }
  Reply reply = parse_command_output(result.stdout_text);
  reply.latency_s = static_cast<double>(result.wall.count()) / 1000.0;
  return reply;
}

Reply parse_command_output(const std::string& stdout_text) {
  auto json = nlohmann::json::parse(stdout_text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("content") || !json["content"].is_string()) {
    return Reply{.content = stdout_text, .finish_reason = "stop"};
  }
  Reply reply{.content = json["content"].get<std::string>(),
              .finish_reason = string_field(json, "finish_reason"),
              .model = string_field(json, "model")};
  if (reply.finish_reason.empty()) reply.finish_reason = "stop";
  if (std::string reasoning = string_field(json, "reasoning_content"); !reasoning.empty()) {
    reply.reasoning_content = std::move(reasoning);
  }
  if (json.contains("usage") && json["usage"].is_object()) {
    const auto& usage = json["usage"];
    reply.usage = Usage{.prompt_tokens = int_field(usage, "prompt_tokens"),
                        .completion_tokens = int_field(usage, "completion_tokens"),
                        .reasoning_tokens = int_field(usage, "reasoning_tokens")};
  }
  return reply;
}

}  // namespace ptxbench::model
