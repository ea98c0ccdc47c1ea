#include "ptxbench/serve/reward.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::serve {
namespace {

bool compiled(eval::Verdict verdict) {
  switch (verdict) {
    case eval::Verdict::kNoCode:
    case eval::Verdict::kForbidden:
    case eval::Verdict::kCompileError:
      return false;
    default:
      return true;
  }
}

using Field = std::pair<const char*, double RewardConfig::*>;
constexpr std::array<Field, 5> kFields{{{"compile", &RewardConfig::compile},
                                        {"correct", &RewardConfig::correct},
                                        {"executed", &RewardConfig::executed},
                                        {"speedup", &RewardConfig::speedup},
                                        {"speedup_cap", &RewardConfig::speedup_cap}}};

}  // namespace

std::optional<double> reward_of(const eval::Evaluation& evaluation, const RewardConfig& config) {
  const auto verdict = evaluation.verdict;
  if (verdict == eval::Verdict::kNotRun || verdict == eval::Verdict::kInternalError)
    return std::nullopt;
  double reward = 0;
  if (compiled(verdict)) reward += config.compile;
  if (evaluation.correct()) {
    reward += config.correct;
    if (evaluation.verified()) reward += config.executed;
    if (const auto speedup = evaluation.headline_speedup())
      reward += config.speedup * std::clamp(*speedup, 0.0, config.speedup_cap);
  }
  return reward;
}

nlohmann::json to_json(const RewardConfig& config) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, member] : kFields) out[name] = config.*member;
  return out;
}

util::Expected<RewardConfig> reward_config_from_json(const nlohmann::json& json,
                                                     const std::string& where) {
  if (!json.is_object()) return util::make_error(fmt::format("{}: expected a JSON object", where));
  RewardConfig config;
  for (const auto& [key, value] : json.items()) {
    const auto* field = std::find_if(kFields.begin(), kFields.end(),
                                     [&](const Field& f) { return key == f.first; });
    if (field == kFields.end())
      return util::make_error(fmt::format(
          "{}: {}: unknown key (expected compile, correct, executed, speedup, speedup_cap)", where,
          key));
    if (!value.is_number() || value.get<double>() < 0)
      return util::make_error(fmt::format("{}: {}: expected a number >= 0", where, key));
    config.*(field->second) = value.get<double>();
  }
  return config;
}

util::Expected<RewardConfig> load_reward_config(const std::filesystem::path& path) {
  auto text = util::read_file(path);
  if (!text) return text.error();
  auto json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded())
    return util::make_error(fmt::format("{}: not valid JSON", path.string()));
  return reward_config_from_json(json, path.string());
}

}  // namespace ptxbench::serve
