#include "ptxbench/model/provider_factory.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "ptxbench/model/anthropic_provider.hpp"
#include "ptxbench/model/command_provider.hpp"
#include "ptxbench/model/guarded_provider.hpp"
#include "ptxbench/model/limited_provider.hpp"
#include "ptxbench/model/openai_provider.hpp"
#include "ptxbench/model/replay_provider.hpp"

namespace ptxbench::model {
namespace {

util::Expected<std::string> api_key(const ProviderConfig& config) {
  if (config.api_key_env.empty()) return std::string();
  const char* key = std::getenv(config.api_key_env.c_str());
  if (key == nullptr || *key == '\0') {
    return util::make_error(fmt::format(
        "model {}: environment variable {} is not set (set api_key_env: \"\" for a server "
        "that needs no key)",
        config.name, config.api_key_env));
  }
  return std::string(key);
}

util::Expected<std::unique_ptr<Provider>> make_base(const ProviderConfig& config,
                                                    ProviderDependencies& dependencies) {
  switch (config.kind) {
    case ProviderKind::kOpenAi:
    case ProviderKind::kAnthropic: {
      auto key = api_key(config);
      if (!key) return key.error();
      if (!dependencies.http) dependencies.http = std::make_shared<CurlHttpClient>();
      if (config.kind == ProviderKind::kOpenAi) {
        return std::unique_ptr<Provider>(
            std::make_unique<OpenAiProvider>(config, std::move(*key), dependencies.http));
      }
      return std::unique_ptr<Provider>(
          std::make_unique<AnthropicProvider>(config, std::move(*key), dependencies.http));
    }
    case ProviderKind::kCommand:
      if (!dependencies.processes) {
        // On this machine's processes, a program that cannot run is refused now: every call
        // would fail, and a command that only records failed calls would end "successfully".
        const std::string& program = config.command.front();
        const auto found = util::find_in_path(program);
        if (!found || std::filesystem::is_directory(*found))
          return util::make_error(
              fmt::format("model {}: command {}: no such executable{}", config.name, program,
                          program.find('/') == std::string::npos ? " in PATH" : ""));
        dependencies.processes = std::make_shared<util::SystemProcessRunner>();
      }
      return std::unique_ptr<Provider>(
          std::make_unique<CommandProvider>(config, dependencies.processes));
    case ProviderKind::kReplay: {
      auto book = load_replay_book(config.replay_path, config.max_reply_bytes);
      if (!book)
        return util::make_error(fmt::format("model {}: {}", config.name, book.error().message));
      return std::unique_ptr<Provider>(std::make_unique<ReplayProvider>(std::move(*book)));
    }
  }
  return util::make_error("unknown provider kind");
}

}  // namespace

std::vector<std::string> known_secrets(const ProviderConfig& config) {
  std::vector<std::string> secrets;
  if (!config.api_key_env.empty()) {
    if (const char* key = std::getenv(config.api_key_env.c_str()); key != nullptr && *key != '\0')
      secrets.emplace_back(key);
  }
  for (const auto& [name, value] : config.headers) {
    if (value.size() >= kMinSecretHeaderBytes) secrets.push_back(value);
  }
  return secrets;
}

util::Expected<std::shared_ptr<Provider>> make_provider(const ProviderConfig& config,
                                                        ProviderDependencies dependencies) {
  auto base = make_base(config, dependencies);
  if (!base) return base.error();
  auto guarded = std::make_unique<GuardedProvider>(std::move(*base), known_secrets(config),
                                                   config.max_reply_bytes);
  return std::shared_ptr<Provider>(
      std::make_shared<LimitedProvider>(std::move(guarded), config.retry, config.limits));
}

}  // namespace ptxbench::model
