#include "ptxbench/model/openai_provider.hpp"

#include <sstream>

#include "ptxbench/model/http_error.hpp"
#include "ptxbench/model/json_fields.hpp"
#include "ptxbench/util/json_text.hpp"

namespace ptxbench::model {
namespace {

using Json = nlohmann::json;

// vLLM/SGLang/DeepSeek say `reasoning_content`, OpenRouter and newer vLLM say `reasoning`.
std::string reasoning_of(const Json& message) {
  std::string text = string_field(message, "reasoning_content");
  return text.empty() ? string_field(message, "reasoning") : text;
}

Usage usage_of(const Json& usage) {
  Usage out{.prompt_tokens = int_field(usage, "prompt_tokens"),
            .completion_tokens = int_field(usage, "completion_tokens")};
  if (usage.is_object() && usage.contains("completion_tokens_details")) {
    out.reasoning_tokens = int_field(usage["completion_tokens_details"], "reasoning_tokens");
  }
  return out;
}

}  // namespace

OpenAiProvider::OpenAiProvider(ProviderConfig config, std::string api_key,
                               std::shared_ptr<HttpClient> http)
    : config_(std::move(config)), api_key_(std::move(api_key)), http_(std::move(http)) {}

Json OpenAiProvider::request_body(const Conversation& conversation) const {
  Json messages = Json::array();
  for (const auto& message : conversation) {
    messages.push_back({{"role", message.role}, {"content", message.content}});
  }
  Json body{{"model", config_.model}, {"messages", std::move(messages)}};
  if (config_.temperature) body["temperature"] = *config_.temperature;
  if (config_.top_p) body["top_p"] = *config_.top_p;
  if (config_.max_tokens) body["max_tokens"] = *config_.max_tokens;
  if (config_.stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  // Extra fields win: they exist to set what this code does not know about.
  for (const auto& item : config_.extra_body.items()) body[item.key()] = item.value();
  return body;
}

CallResult OpenAiProvider::complete(const Conversation& conversation, const CallContext&) {
  HttpRequest request{.url = config_.base_url + "/chat/completions",
                      .body = util::dump_json(request_body(conversation)),
                      .timeout = config_.timeout,
                      .max_response_bytes = transport_cap_bytes(config_.max_reply_bytes)};
  request.headers.emplace_back("Content-Type", "application/json");
  if (!api_key_.empty()) request.headers.emplace_back("Authorization", "Bearer " + api_key_);
  for (const auto& [name, value] : config_.headers) request.headers.emplace_back(name, value);

  HttpResponse response = http_->post(request);
  if (auto failure = http_failure(response)) return *failure;
  const std::string* type = response.header("content-type");
  bool event_stream = type != nullptr && type->find("text/event-stream") != std::string::npos;
  CallResult result = event_stream || (config_.stream && response.body.starts_with("data:"))
                          ? parse_chat_completion_stream(response)
                          : parse_chat_completion(response);
  if (result.ok()) result.reply().latency_s = response.seconds;
  return result;
}

CallResult parse_chat_completion(const HttpResponse& response) {
  Json json = Json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object())
    return malformed_reply(response, "not a JSON object");
  if (json.contains("error") && !json["error"].is_null()) {
    return malformed_reply(response, "an error object in a 2xx reply");
  }
  if (!json.contains("choices") || !json["choices"].is_array() || json["choices"].empty()) {
    return malformed_reply(response, "no choices");
  }
  const Json& choice = json["choices"][0];
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object()) {
    return malformed_reply(response, "choice without a message");
  }
  const Json& message = choice["message"];
  Reply reply{.content = string_field(message, "content"),
              .usage = usage_of(json.value("usage", Json::object())),
              .finish_reason = string_field(choice, "finish_reason"),
              .model = string_field(json, "model")};
  if (std::string reasoning = reasoning_of(message); !reasoning.empty()) {
    reply.reasoning_content = std::move(reasoning);
  }
  return reply;
}

CallResult parse_chat_completion_stream(const HttpResponse& response) {
  Reply reply;
  std::string reasoning;
  bool saw_choice = false;
  bool done = false;
  std::istringstream lines(response.body);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.starts_with("data:")) continue;  // comments, event names, blank separators
    std::string_view data = std::string_view(line).substr(5);
    while (!data.empty() && data.front() == ' ') data.remove_prefix(1);
    if (data == "[DONE]") {
      done = true;
      break;
    }
    Json chunk = Json::parse(data, nullptr, /*allow_exceptions=*/false);
    if (chunk.is_discarded() || !chunk.is_object())
      return malformed_reply(response, "a malformed event");
    if (chunk.contains("error") && !chunk["error"].is_null()) {
      return malformed_reply(response, "an error event in the stream");
    }
    if (reply.model.empty()) reply.model = string_field(chunk, "model");
    if (chunk.contains("usage") && chunk["usage"].is_object())
      reply.usage = usage_of(chunk["usage"]);
    if (!chunk.contains("choices") || !chunk["choices"].is_array() || chunk["choices"].empty())
      continue;
    const Json& choice = chunk["choices"][0];
    saw_choice = true;
    if (std::string finish = string_field(choice, "finish_reason"); !finish.empty()) {
      reply.finish_reason = finish;
    }
    if (choice.contains("delta") && choice["delta"].is_object()) {
      reply.content += string_field(choice["delta"], "content");
      reasoning += reasoning_of(choice["delta"]);
    }
  }
  if (!saw_choice) return malformed_reply(response, "a stream without choices");
  if (!done && reply.finish_reason.empty()) return malformed_reply(response, "a stream cut short");
  if (!reasoning.empty()) reply.reasoning_content = std::move(reasoning);
  return reply;
}

}  // namespace ptxbench::model
