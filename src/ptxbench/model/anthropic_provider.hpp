// Anthropic Messages API: POST {base_url}/v1/messages with x-api-key and anthropic-version;
// system messages go to the top-level `system` field; thinking blocks are kept as reasoning.
// Requests are not streamed.
#pragma once
#include <memory>
#include <string>

#include "ptxbench/model/http_client.hpp"
#include "ptxbench/model/provider.hpp"
#include "ptxbench/model/provider_config.hpp"

namespace ptxbench::model {

// The API requires max_tokens; this is sent when the config sets none.
inline constexpr int kAnthropicDefaultMaxTokens = 16384;

class AnthropicProvider final : public Provider {
 public:
  AnthropicProvider(ProviderConfig config, std::string api_key, std::shared_ptr<HttpClient> http);
  CallResult complete(const Conversation& conversation, const CallContext& context) override;

  nlohmann::json request_body(const Conversation& conversation) const;

 private:
  ProviderConfig config_;
  std::string api_key_;
  std::shared_ptr<HttpClient> http_;
};

CallResult parse_anthropic_message(const HttpResponse& response);

}  // namespace ptxbench::model
