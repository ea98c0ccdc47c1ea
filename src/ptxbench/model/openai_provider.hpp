// OpenAI-compatible chat completions (OpenAI, vLLM, SGLang, llama.cpp server, OpenRouter):
// POST {base_url}/chat/completions. Keeps `reasoning_content` / `reasoning` when the server
// returns it; optionally streams (server-sent events, accumulated before returning).
#pragma once
#include <memory>
#include <string>

#include "ptxbench/model/http_client.hpp"
#include "ptxbench/model/provider.hpp"
#include "ptxbench/model/provider_config.hpp"

namespace ptxbench::model {

class OpenAiProvider final : public Provider {
 public:
  // `api_key` empty: no Authorization header (local servers).
  OpenAiProvider(ProviderConfig config, std::string api_key, std::shared_ptr<HttpClient> http);
  CallResult complete(const Conversation& conversation, const CallContext& context) override;

  // The request body for a conversation (exposed for tests).
  nlohmann::json request_body(const Conversation& conversation) const;

 private:
  ProviderConfig config_;
  std::string api_key_;
  std::shared_ptr<HttpClient> http_;
};

// Parsers of a successful response body (exposed for tests and fuzzing); errors are values.
CallResult parse_chat_completion(const HttpResponse& response);
CallResult parse_chat_completion_stream(const HttpResponse& response);

}  // namespace ptxbench::model
