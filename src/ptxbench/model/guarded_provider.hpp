// Wraps a provider so that what it returns is safe to record: every known secret value (the
// API key, long header values) is replaced wherever it appears in a reply or an error message
// (a proxy that echoes request headers in its error page), and a reply larger than the model's
// max_reply_bytes is an error instead of a stored and resent multi-megabyte turn.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ptxbench/model/provider.hpp"

namespace ptxbench::model {

inline constexpr std::string_view kSecretPlaceholder = "[secret removed]";

// `text` with every occurrence of each secret (empty ones ignored) replaced by the placeholder.
std::string scrub_secrets(std::string text, const std::vector<std::string>& secrets);

class GuardedProvider final : public Provider {
 public:
  GuardedProvider(std::unique_ptr<Provider> inner, std::vector<std::string> secrets,
                  std::size_t max_reply_bytes);
  CallResult complete(const Conversation& conversation, const CallContext& context) override;

 private:
  std::unique_ptr<Provider> inner_;
  std::vector<std::string> secrets_;
  std::size_t max_reply_bytes_;
};

}  // namespace ptxbench::model
