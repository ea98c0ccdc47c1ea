#include "ptxbench/model/anthropic_provider.hpp"

#include "ptxbench/model/http_error.hpp"
#include "ptxbench/model/json_fields.hpp"
#include "ptxbench/util/json_text.hpp"

namespace ptxbench::model {
namespace {

using Json = nlohmann::json;

}  // namespace

AnthropicProvider::AnthropicProvider(ProviderConfig config, std::string api_key,
                                     std::shared_ptr<HttpClient> http)
    : config_(std::move(config)), api_key_(std::move(api_key)), http_(std::move(http)) {}

Json AnthropicProvider::request_body(const Conversation& conversation) const {
  std::string system;
  Json messages = Json::array();
  for (const auto& message : conversation) {
    if (message.role == "system") {
      if (!system.empty()) system += "\n\n";
      system += message.content;
      continue;
    }
    // The API wants user and assistant to alternate: merge neighbours of the same role.
    if (!messages.empty() && messages.back()["role"] == message.role) {
      messages.back()["content"] =
          messages.back()["content"].get<std::string>() + "\n\n" + message.content;
      continue;
    }
    messages.push_back({{"role", message.role}, {"content", message.content}});
  }
  Json body{{"model", config_.model},
            {"max_tokens", config_.max_tokens.value_or(kAnthropicDefaultMaxTokens)},
            {"messages", std::move(messages)}};
  if (!system.empty()) body["system"] = system;
  if (config_.temperature) body["temperature"] = *config_.temperature;
  if (config_.top_p) body["top_p"] = *config_.top_p;
  for (const auto& item : config_.extra_body.items()) body[item.key()] = item.value();
  return body;
}

CallResult AnthropicProvider::complete(const Conversation& conversation, const CallContext&) {
  HttpRequest request{.url = config_.base_url + "/v1/messages",
                      .body = util::dump_json(request_body(conversation)),
                      .timeout = config_.timeout,
                      .max_response_bytes = transport_cap_bytes(config_.max_reply_bytes)};
  request.headers.emplace_back("Content-Type", "application/json");
  request.headers.emplace_back("anthropic-version", config_.anthropic_version);
  if (!api_key_.empty()) request.headers.emplace_back("x-api-key", api_key_);
  for (const auto& [name, value] : config_.headers) request.headers.emplace_back(name, value);

  HttpResponse response = http_->post(request);
  if (auto failure = http_failure(response)) return *failure;
  CallResult result = parse_anthropic_message(response);
  if (result.ok()) result.reply().latency_s = response.seconds;
  return result;
}

CallResult parse_anthropic_message(const HttpResponse& response) {
  Json json = Json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object())
    return malformed_reply(response, "not a JSON object");
  if (string_field(json, "type") == "error")
    return malformed_reply(response, "an error object in a 2xx reply");
  if (!json.contains("content") || !json["content"].is_array()) {
    return malformed_reply(response, "no content array");
  }
  Reply reply{.finish_reason = string_field(json, "stop_reason"),
              .model = string_field(json, "model")};
  std::string reasoning;
  for (const Json& block : json["content"]) {
    std::string type = string_field(block, "type");
    if (type == "text") {
      reply.content += string_field(block, "text");
    } else if (type == "thinking") {
      reasoning += string_field(block, "thinking");
    } else if (type == "redacted_thinking") {
      reasoning += "[redacted thinking]";
    }
  }
  if (!reasoning.empty()) reply.reasoning_content = std::move(reasoning);
  if (json.contains("usage") && json["usage"].is_object()) {
    const Json& usage = json["usage"];
    // Prompt tokens: the uncached input plus what was read from or written to the cache.
    std::optional<std::int64_t> prompt = int_field(usage, "input_tokens");
    for (const char* cached : {"cache_read_input_tokens", "cache_creation_input_tokens"}) {
      if (auto extra = int_field(usage, cached); extra && prompt) *prompt += *extra;
    }
    reply.usage =
        Usage{.prompt_tokens = prompt, .completion_tokens = int_field(usage, "output_tokens")};
  }
  return reply;
}

}  // namespace ptxbench::model
