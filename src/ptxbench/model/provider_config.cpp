#include "ptxbench/model/provider_config.hpp"

#include <fmt/format.h>

#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <set>
#include <sstream>
#include <type_traits>

#include "ptxbench/util/field_reader.hpp"

namespace ptxbench::model {
namespace {

constexpr std::array<std::string_view, 4> kKindNames{"openai", "anthropic", "command", "replay"};

using Json = nlohmann::json;

constexpr double kMaxSeconds = 7 * 24 * 3600;  // a week: longer is a typo, not a setting
constexpr int kMaxAttempts = 100;
constexpr int kMaxConcurrency = 1024;
constexpr std::size_t kMaxReplyBytesLimit = 1u << 30;

std::chrono::milliseconds seconds_to_ms(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0));
}

double ms_to_seconds(std::chrono::milliseconds ms) {
  return static_cast<double>(ms.count()) / 1000.0;
}

using util::FieldReader;

// Seconds in [0, kMaxSeconds]; the milliseconds they become cannot overflow.
void read_seconds(FieldReader& fields, std::string_view key, std::chrono::milliseconds& out) {
  std::optional<double> seconds;
  fields.read(key, seconds);
  if (!seconds) return;
  if (*seconds < 0 || *seconds > kMaxSeconds) {
    return fields.fail(
        key, fmt::format("expected seconds between 0 and {} ({})", kMaxSeconds, *seconds));
  }
  out = seconds_to_ms(*seconds);
}

}  // namespace

std::string_view to_string(ProviderKind kind) {
  return kKindNames.at(static_cast<std::size_t>(kind));
}

std::optional<ProviderKind> parse_provider_kind(std::string_view name) {
  for (std::size_t i = 0; i < kKindNames.size(); ++i) {
    if (kKindNames[i] == name) return static_cast<ProviderKind>(i);
  }
  return std::nullopt;
}

std::string ProviderConfig::default_base_url() const {
  switch (kind) {
    case ProviderKind::kOpenAi:
      return "https://api.openai.com/v1";
    case ProviderKind::kAnthropic:
      return "https://api.anthropic.com";
    case ProviderKind::kCommand:
    case ProviderKind::kReplay:
      break;
  }
  return "";
}

util::Expected<ProviderConfig> provider_config_from_json(const Json& json,
                                                         const std::filesystem::path& base_dir) {
  if (!json.is_object()) return util::make_error("model: expected a mapping");
  ProviderConfig config;
  if (json.contains("name") && json["name"].is_string())
    config.name = json["name"].get<std::string>();
  if (config.name.empty()) return util::make_error("model: name: required (a string)");
  auto invalid = [&config](std::string_view what) {
    return util::make_error(fmt::format("model {}: {}", config.name, what));
  };
  std::string kind = json.contains("provider") && json["provider"].is_string()
                         ? json["provider"].get<std::string>()
                         : std::string();
  auto parsed_kind = parse_provider_kind(kind);
  if (!parsed_kind) {
    return invalid(
        fmt::format("provider: '{}' is not one of {}", kind, fmt::join(kKindNames, ", ")));
  }
  config.kind = *parsed_kind;

  FieldReader fields(json, fmt::format("model {}: ", config.name));
  fields.mark("name");
  fields.mark("provider");
  std::optional<std::string> api_key_env;
  fields.read("model", config.model);
  fields.read("base_url", config.base_url);
  fields.read("api_key_env", api_key_env);
  fields.read("temperature", config.temperature);
  fields.read("top_p", config.top_p);
  fields.read("max_tokens", config.max_tokens);
  fields.read("extra_body", config.extra_body);
  fields.read("headers", config.headers);
  fields.read("anthropic_version", config.anthropic_version);
  fields.read("stream", config.stream);
  read_seconds(fields, "timeout_s", config.timeout);
  fields.read("max_reply_bytes", config.max_reply_bytes);
  if (!config.extra_body.is_object()) fields.fail("extra_body", "expected a mapping");
  if (json.contains("command") && json["command"].is_string()) {
    // A plain string is split on whitespace; no shell is involved.
    fields.mark("command");
    std::istringstream words(json["command"].get<std::string>());
    for (std::string word; words >> word;) config.command.push_back(word);
  } else {
    fields.read("command", config.command);
  }
  std::string replay_path;
  fields.read("path", replay_path);
  if (!replay_path.empty()) {
    std::filesystem::path path(replay_path);
    config.replay_path = path.is_absolute() ? path : base_dir / path;
  }
  if (json.contains("retries")) {
    fields.mark("retries");
    FieldReader retries(json["retries"], fmt::format("model {}: retries.", config.name));
    retries.read("max_attempts", config.retry.max_attempts);
    read_seconds(retries, "initial_backoff_s", config.retry.initial_backoff);
    read_seconds(retries, "max_backoff_s", config.retry.max_backoff);
    retries.read("multiplier", config.retry.multiplier);
    retries.read("jitter", config.retry.jitter);
    read_seconds(retries, "max_retry_after_s", config.retry.max_retry_after);
    if (const auto& error = retries.finish(); !error.empty()) return util::make_error(error);
  }
  if (json.contains("limits")) {
    fields.mark("limits");
    FieldReader limits(json["limits"], fmt::format("model {}: limits.", config.name));
    limits.read("requests_per_minute", config.limits.requests_per_minute);
    limits.read("burst", config.limits.burst);
    limits.read("concurrency", config.limits.concurrency);
    if (const auto& error = limits.finish(); !error.empty()) return util::make_error(error);
  }
  if (const auto& error = fields.finish(); !error.empty()) return util::make_error(error);

  if (config.model.empty()) config.model = config.name;
  if (config.base_url.empty()) config.base_url = config.default_base_url();
  if (api_key_env) {
    config.api_key_env = *api_key_env;
  } else if (config.kind == ProviderKind::kOpenAi) {
    config.api_key_env = "OPENAI_API_KEY";
  } else if (config.kind == ProviderKind::kAnthropic) {
    config.api_key_env = "ANTHROPIC_API_KEY";
  }
  if (config.kind == ProviderKind::kCommand && config.command.empty()) {
    return invalid("command: required for provider command");
  }
  if (config.kind == ProviderKind::kReplay && config.replay_path.empty()) {
    return invalid("path: required for provider replay");
  }
  // Ranges: each a clear error, never a silent clamp.
  const auto& retry = config.retry;
  if (retry.max_attempts < 1 || retry.max_attempts > kMaxAttempts)
    return invalid(fmt::format("retries.max_attempts: expected 1 to {}", kMaxAttempts));
  if (retry.multiplier < 1 || retry.multiplier > 100)
    return invalid("retries.multiplier: expected 1 to 100");
  if (retry.jitter < 0 || retry.jitter > 1) return invalid("retries.jitter: expected 0 to 1");
  if (retry.max_backoff < retry.initial_backoff)
    return invalid("retries.max_backoff_s: must not be less than initial_backoff_s");
  if (config.limits.concurrency < 1 || config.limits.concurrency > kMaxConcurrency)
    return invalid(fmt::format("limits.concurrency: expected 1 to {}", kMaxConcurrency));
  if (config.limits.requests_per_minute < 0 || config.limits.requests_per_minute > 1e6)
    return invalid("limits.requests_per_minute: expected 0 (no limit) to 1000000");
  if (config.limits.burst < 1 || config.limits.burst > 10000)
    return invalid("limits.burst: expected 1 to 10000");
  if (config.timeout.count() <= 0) return invalid("timeout_s: must be positive");
  if (config.temperature && (*config.temperature < 0 || *config.temperature > 10))
    return invalid("temperature: expected 0 to 10");
  if (config.top_p && (*config.top_p <= 0 || *config.top_p > 1))
    return invalid("top_p: expected more than 0 and at most 1");
  if (config.max_tokens && *config.max_tokens < 1) return invalid("max_tokens: expected >= 1");
  if (config.max_reply_bytes < 1024 || config.max_reply_bytes > kMaxReplyBytesLimit)
    return invalid(fmt::format("max_reply_bytes: expected 1024 to {}", kMaxReplyBytesLimit));
  return config;
}

Json to_json(const ProviderConfig& config) {
  Json header_names = Json::array();
  for (const auto& [header, value] : config.headers) header_names.push_back(header);
  Json json{
      {"name", config.name},
      {"provider", to_string(config.kind)},
      {"model", config.model},
      {"temperature", config.temperature ? Json(*config.temperature) : Json()},
      {"top_p", config.top_p ? Json(*config.top_p) : Json()},
      {"max_tokens", config.max_tokens ? Json(*config.max_tokens) : Json()},
      {"timeout_s", ms_to_seconds(config.timeout)},
      {"max_reply_bytes", config.max_reply_bytes},
      {"retries",
       {{"max_attempts", config.retry.max_attempts},
        {"initial_backoff_s", ms_to_seconds(config.retry.initial_backoff)},
        {"max_backoff_s", ms_to_seconds(config.retry.max_backoff)},
        {"multiplier", config.retry.multiplier},
        {"jitter", config.retry.jitter},
        {"max_retry_after_s", ms_to_seconds(config.retry.max_retry_after)}}},
      {"limits",
       {{"requests_per_minute", config.limits.requests_per_minute},
        {"burst", config.limits.burst},
        {"concurrency", config.limits.concurrency}}},
  };
  switch (config.kind) {
    case ProviderKind::kOpenAi:
    case ProviderKind::kAnthropic:
      json["base_url"] = config.base_url;
      json["api_key_env"] = config.api_key_env;
      json["extra_body"] = config.extra_body;
      json["header_names"] = header_names;
      if (config.kind == ProviderKind::kOpenAi) json["stream"] = config.stream;
      if (config.kind == ProviderKind::kAnthropic)
        json["anthropic_version"] = config.anthropic_version;
      break;
    case ProviderKind::kCommand:
      json["command"] = config.command;
      break;
    case ProviderKind::kReplay:
      json["path"] = config.replay_path.string();
      break;
  }
  return json;
}

}  // namespace ptxbench::model
