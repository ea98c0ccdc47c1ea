#include "ptxbench/serve/reward.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "ptxbench/util/field_reader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::serve {
namespace {

using eval::Verdict;
using nlohmann::json;

bool compiled(Verdict verdict) {
  switch (verdict) {
    case Verdict::kNoCode:
    case Verdict::kForbidden:
    case Verdict::kCompileError:
      return false;
    default:
      return true;
  }
}

// A field of RewardConfig or of its TieredReward, by name, for the kinds it belongs to.
struct Field {
  const char* name;
  RewardKind kind;
  double* (*member)(RewardConfig&);
  bool may_be_negative;
};

// clang-format off
const std::array<Field, 11> kFields{{
    {"compile", RewardKind::kWeighted, [](RewardConfig& c) { return &c.compile; }, false},
    {"correct", RewardKind::kWeighted, [](RewardConfig& c) { return &c.correct; }, false},
    {"executed", RewardKind::kWeighted, [](RewardConfig& c) { return &c.executed; }, false},
    {"speedup", RewardKind::kWeighted, [](RewardConfig& c) { return &c.speedup; }, false},
    {"speedup_cap", RewardKind::kWeighted, [](RewardConfig& c) { return &c.speedup_cap; }, false},
    {"compile_failure", RewardKind::kTiered, [](RewardConfig& c) { return &c.tiered.compile_failure; }, true},
    {"incorrect", RewardKind::kTiered, [](RewardConfig& c) { return &c.tiered.incorrect; }, true},
    {"not_executed", RewardKind::kTiered, [](RewardConfig& c) { return &c.tiered.not_executed; }, true},
    {"gaming", RewardKind::kTiered, [](RewardConfig& c) { return &c.tiered.gaming; }, true},
    {"slower", RewardKind::kTiered, [](RewardConfig& c) { return &c.tiered.slower; }, true},
    {"threshold", RewardKind::kPassAtSpeedup, [](RewardConfig& c) { return &c.threshold; }, false},
}};
// clang-format on

std::optional<RewardKind> parse_kind(std::string_view name) {
  for (auto kind : {RewardKind::kWeighted, RewardKind::kTiered, RewardKind::kPassAtSpeedup}) {
    if (name == to_string(kind)) return kind;
  }
  return std::nullopt;
}

std::string field_names(RewardKind kind) {
  std::string names = "kind, version";
  for (const auto& f : kFields) {
    if (f.kind == kind) names += std::string(", ") + f.name;
  }
  if (kind == RewardKind::kTiered) names += ", tiers";
  return names;
}

util::Expected<std::vector<SpeedupTier>> read_tiers(const json& value, const std::string& where) {
  const auto bad = [&] {
    return util::make_error(fmt::format(
        "{}: tiers: expected a list of {{\"speedup\": x > 0, \"reward\": y}} with increasing "
        "speedups",
        where));
  };
  if (!value.is_array() || value.empty()) return bad();
  std::vector<SpeedupTier> tiers;
  for (const auto& tier : value) {
    if (!tier.is_object() || tier.size() != 2 || !tier.contains("speedup") ||
        !tier.contains("reward") || !tier["speedup"].is_number() || !tier["reward"].is_number())
      return bad();
    SpeedupTier read{.min_speedup = tier["speedup"].get<double>(),
                     .reward = tier["reward"].get<double>()};
    if (read.min_speedup <= 0 || (!tiers.empty() && read.min_speedup <= tiers.back().min_speedup))
      return bad();
    tiers.push_back(read);
  }
  return tiers;
}

bool is_gaming(const RewardParts& parts) {
  return parts.forbidden || parts.inputs_modified || parts.outputs_changed_between_timed_calls;
}

std::optional<double> tiered_reward(const RewardParts& parts, const TieredReward& table) {
  if (is_gaming(parts)) return table.gaming;
  if (!parts.compiled) return table.compile_failure;
  // The machine code lacks a requested family (decided without a GPU): correctness unmeasured.
  if (parts.verdict == Verdict::kInstructionsAbsent) return table.not_executed;
  if (!parts.correct) return table.incorrect;
  if (!parts.verified) return table.not_executed;
  if (!parts.speedup) return std::nullopt;  // PASSED but not timed: the tier is unknown
  double reward = table.slower;
  for (const auto& tier : table.tiers) {
    if (*parts.speedup >= tier.min_speedup) reward = tier.reward;
  }
  return reward;
}

std::optional<double> weighted_reward(const RewardParts& parts, const RewardConfig& config) {
  double reward = 0;
  if (parts.compiled) reward += config.compile;
  if (parts.correct) {
    reward += config.correct;
    if (parts.verified) reward += config.executed;
    if (parts.speedup)
      reward += config.speedup * std::clamp(*parts.speedup, 0.0, config.speedup_cap);
  }
  return reward;
}

}  // namespace

std::string_view to_string(RewardKind kind) {
  switch (kind) {
    case RewardKind::kWeighted:
      return "weighted";
    case RewardKind::kTiered:
      return "tiered";
    case RewardKind::kPassAtSpeedup:
      return "pass_at_speedup";
  }
  return "unknown";
}

RewardParts reward_parts(const eval::Evaluation& evaluation) {
  const auto verdict = evaluation.verdict;
  RewardParts parts{.verdict = verdict,
                    .compiled = compiled(verdict),
                    .correct = evaluation.correct(),
                    .verified = evaluation.verified(),
                    .families = evaluation.families,
                    .speedup = evaluation.headline_speedup(),
                    .forbidden = verdict == Verdict::kForbidden,
                    .inputs_modified = verdict == Verdict::kInputsModified};
  for (const auto& workload : evaluation.workloads) {
    if (workload.headline && workload.speed_of_light)
      parts.speed_of_light = workload.speed_of_light->fraction;
  }
  // Correct in the correctness stage, then different outputs in the timed calls: the timing
  // stage fails the candidate as INCORRECT_NUMERICAL (timing_judgement.cpp).
  const auto* timing = evaluation.find_stage(eval::Stage::kTiming);
  parts.outputs_changed_between_timed_calls = verdict == Verdict::kIncorrectNumerical && timing &&
                                              timing->status == eval::StageStatus::kFailed;
  return parts;
}

std::optional<double> reward_of(const eval::Evaluation& evaluation, const RewardConfig& config) {
  const auto verdict = evaluation.verdict;
  if (verdict == Verdict::kNotRun || verdict == Verdict::kInternalError) return std::nullopt;
  const auto parts = reward_parts(evaluation);
  switch (config.kind) {
    case RewardKind::kWeighted:
      return weighted_reward(parts, config);
    case RewardKind::kTiered:
      return tiered_reward(parts, config.tiered);
    case RewardKind::kPassAtSpeedup:
      return parts.verified && parts.speedup && *parts.speedup >= config.threshold ? 1.0 : 0.0;
  }
  return std::nullopt;
}

json to_json(const RewardConfig& config) {
  json out{{"kind", to_string(config.kind)}, {"version", kRewardVersion}};
  RewardConfig copy = config;
  for (const auto& f : kFields) {
    if (f.kind == config.kind) out[f.name] = *f.member(copy);
  }
  if (config.kind == RewardKind::kTiered) {
    json tiers = json::array();
    for (const auto& t : config.tiered.tiers)
      tiers.push_back({{"speedup", t.min_speedup}, {"reward", t.reward}});
    out["tiers"] = tiers;
  }
  return out;
}

json to_json(const RewardParts& parts) {
  json families = json::array();
  for (const auto& f : parts.families) {
    families.push_back({{"family", f.family},
                        {"requested", f.requested},
                        {"static_count", f.static_count},
                        {"executed_count", f.executed_count ? json(*f.executed_count) : json()},
                        {"flop_share", f.flop_share ? json(*f.flop_share) : json()},
                        {"substantial", f.substantial}});
  }
  const auto optional = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
  return {{"verdict", eval::to_string(parts.verdict)},
          {"compiled", parts.compiled},
          {"correct", parts.correct},
          {"verified", parts.verified},
          {"families", families},
          {"speedup", optional(parts.speedup)},
          {"speed_of_light", optional(parts.speed_of_light)},
          {"exploits",
           {{"forbidden", parts.forbidden},
            {"inputs_modified", parts.inputs_modified},
            {"outputs_changed_between_timed_calls", parts.outputs_changed_between_timed_calls}}}};
}

util::Expected<RewardConfig> reward_config_from_json(const json& input, const std::string& where) {
  if (!input.is_object()) return util::make_error(fmt::format("{}: expected a JSON object", where));
  RewardConfig config;
  if (input.contains("kind")) {
    const auto& kind = input["kind"];
    auto parsed = kind.is_string() ? parse_kind(kind.get<std::string>()) : std::nullopt;
    if (!parsed)
      return util::make_error(
          fmt::format("{}: kind: expected weighted, tiered or pass_at_speedup", where));
    config.kind = *parsed;
  }
  for (const auto& [key, value] : input.items()) {
    if (key == "kind") continue;
    if (key == "version") {
      if (util::integer_problem(value, kRewardVersion, kRewardVersion))  // 2^32+1 is no 1
        return util::make_error(fmt::format("{}: version: this service computes reward version {}",
                                            where, kRewardVersion));
      continue;
    }
    if (key == "tiers" && config.kind == RewardKind::kTiered) {
      auto tiers = read_tiers(value, where);
      if (!tiers) return tiers.error();
      config.tiered.tiers = std::move(*tiers);
      continue;
    }
    const auto* field = std::find_if(kFields.begin(), kFields.end(), [&](const Field& f) {
      return key == f.name && f.kind == config.kind;
    });
    if (field == kFields.end())
      return util::make_error(fmt::format("{}: {}: unknown key for kind {} (expected {})", where,
                                          key, to_string(config.kind), field_names(config.kind)));
    if (!value.is_number() || (!field->may_be_negative && value.get<double>() < 0))
      return util::make_error(fmt::format("{}: {}: expected a number{}", where, key,
                                          field->may_be_negative ? "" : " >= 0"));
    *field->member(config) = value.get<double>();
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
