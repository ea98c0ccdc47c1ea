// Builds the provider a ProviderConfig describes, wrapped in its retry and limit policy.
#pragma once
#include <memory>

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

// Fails when the API key's environment variable is unset or the replay path holds nothing.
util::Expected<std::shared_ptr<Provider>> make_provider(const ProviderConfig& config,
                                                        ProviderDependencies dependencies = {});

}  // namespace ptxbench::model
