// How to reach one model: which protocol, where, with what sampling settings, and the limits
// and retry policy of its calls. Read from run.yaml (through JSON) or built from CLI flags;
// docs/running.md describes every field.
#pragma once
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/model/rate_limiter.hpp"
#include "ptxbench/model/reply.hpp"
#include "ptxbench/model/retry_policy.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::model {

enum class ProviderKind { kOpenAi, kAnthropic, kCommand, kReplay };
std::string_view to_string(ProviderKind kind);  // "openai", "anthropic", "command", "replay"
std::optional<ProviderKind> parse_provider_kind(std::string_view name);

struct ProviderConfig {
  std::string name;  // the label in trajectory ids, results and reports
  ProviderKind kind = ProviderKind::kOpenAi;
  std::string model;        // the name the API expects (defaults to `name`)
  std::string base_url;     // defaults: https://api.openai.com/v1, https://api.anthropic.com
  std::string api_key_env;  // the environment variable holding the key; empty: send none
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<int> max_tokens;
  nlohmann::json extra_body = nlohmann::json::object();  // merged into the request body
  std::map<std::string, std::string> headers;            // extra request headers
  std::string anthropic_version = "2023-06-01";
  bool stream = false;  // OpenAI-compatible only: server-sent events
  std::chrono::milliseconds timeout{std::chrono::minutes(15)};  // one request, or one command run
  RetryPolicy retry;
  RateLimits limits;
  std::size_t max_reply_bytes = kDefaultMaxReplyBytes;  // a longer reply is a provider error
  std::vector<std::string> command;                     // kCommand: argv of the program
  std::filesystem::path replay_path;                    // kReplay: file, directory or run directory

  std::string default_base_url() const;
};

// Unknown fields are errors (a misspelt option must not be silently ignored), and so is every
// number out of its range (docs/running.md lists them). Relative replay
// paths resolve against `base_dir`.
util::Expected<ProviderConfig> provider_config_from_json(const nlohmann::json& json,
                                                         const std::filesystem::path& base_dir);
// For run.json: every setting, header names without their values, never a key.
nlohmann::json to_json(const ProviderConfig& config);

}  // namespace ptxbench::model
