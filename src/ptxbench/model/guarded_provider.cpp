#include "ptxbench/model/guarded_provider.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ptxbench::model {

std::string scrub_secrets(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& secret : secrets) {
    if (secret.empty()) continue;
    for (std::size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + kSecretPlaceholder.size())) {
      text.replace(at, secret.size(), kSecretPlaceholder);
    }
  }
  return text;
}

GuardedProvider::GuardedProvider(std::unique_ptr<Provider> inner, std::vector<std::string> secrets,
                                 std::size_t max_reply_bytes)
    : inner_(std::move(inner)), secrets_(std::move(secrets)), max_reply_bytes_(max_reply_bytes) {
  std::erase_if(secrets_, [](const std::string& secret) { return secret.empty(); });
  // Longest first, so a secret that contains another is removed whole.
  std::sort(secrets_.begin(), secrets_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

CallResult GuardedProvider::complete(const Conversation& conversation, const CallContext& context) {
  CallResult result = inner_->complete(conversation, context);
  if (!result.ok()) {
    result.error().message = scrub_secrets(std::move(result.error().message), secrets_);
    return result;
  }
  Reply& reply = result.reply();
  const std::size_t size =
      reply.content.size() + (reply.reasoning_content ? reply.reasoning_content->size() : 0);
  if (size > max_reply_bytes_) {
    return ProviderError{.message = fmt::format(
                             "reply of {} bytes is larger than max_reply_bytes ({}); not recorded",
                             size, max_reply_bytes_)};
  }
  reply.content = scrub_secrets(std::move(reply.content), secrets_);
  if (reply.reasoning_content) {
    reply.reasoning_content = scrub_secrets(std::move(*reply.reasoning_content), secrets_);
  }
  reply.model = scrub_secrets(std::move(reply.model), secrets_);
  reply.finish_reason = scrub_secrets(std::move(reply.finish_reason), secrets_);
  return result;
}

}  // namespace ptxbench::model
