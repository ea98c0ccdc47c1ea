// Builds the provider a ProviderConfig describes, wrapped in its secret scrubbing and reply cap
// (GuardedProvider) and its retry and limit policy (LimitedProvider).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ptxbench/model/http_client.hpp"
#include "ptxbench/model/provider.hpp"
#include "ptxbench/model/provider_config.hpp"
#include "ptxbench/util/expected.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::model {

struct ProviderDependencies {
  std::shared_ptr<HttpClient> http;                // null: a CurlHttpClient
  std::shared_ptr<util::ProcessRunner> processes;  // null: a SystemProcessRunner
};

// Header values at least this long are treated as secrets (tokens, organisation ids).
inline constexpr std::size_t kMinSecretHeaderBytes = 8;

// The values never to be recorded: the API key from the environment and long header values.
std::vector<std::string> known_secrets(const ProviderConfig& config);

// Fails when the API key's environment variable is unset or the replay path holds nothing.
util::Expected<std::shared_ptr<Provider>> make_provider(const ProviderConfig& config,
                                                        ProviderDependencies dependencies = {});

}  // namespace ptxbench::model
