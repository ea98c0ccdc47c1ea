// The RL reward of one evaluation, defined in this one place (docs/serve.md documents it):
//   reward = compile   * [the candidate compiled and passed the static checks]
//          + correct   * [the outputs were correct]
//          + executed  * [every requested instruction family executed substantially (PASSED)]
//          + speedup   * min(headline speedup, speedup_cap)   (only for a correct candidate)
// A verdict the judge could not establish (NOT_RUN: no GPU of the arch; INTERNAL_ERROR: the
// judge itself failed) has no reward at all: nullopt, `null` in JSON, never 0 by accident.
#pragma once
#include <filesystem>
#include <optional>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/util/expected.hpp"

#include <nlohmann/json.hpp>

namespace ptxbench::serve {

struct RewardConfig {
  double compile = 0.1;
  double correct = 0.3;
  double executed = 0.3;
  double speedup = 0.3;      // per 1x of headline speedup
  double speedup_cap = 3.0;  // a larger speedup earns no more (guards against timing outliers)
};

std::optional<double> reward_of(const eval::Evaluation& evaluation, const RewardConfig& config);

nlohmann::json to_json(const RewardConfig& config);
// Every key optional (missing keys keep the defaults); unknown keys and negative weights are
// errors naming the file and key.
util::Expected<RewardConfig> load_reward_config(const std::filesystem::path& path);
util::Expected<RewardConfig> reward_config_from_json(const nlohmann::json& json,
                                                     const std::string& where);

}  // namespace ptxbench::serve
