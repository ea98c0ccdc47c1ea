// The RL reward of one evaluation: a documented, versioned function chosen per service
// (`ptxbench serve --reward FILE`) or per request (a "reward" object), defined in this one place
// and documented in docs/serve.md ("The reward"). Three kinds:
//   weighted         reward = compile  * [compiled and passed the static checks]
//                           + correct  * [outputs correct]
//                           + executed * [every requested family executed substantially: PASSED]
//                           + speedup  * min(headline speedup, speedup_cap)   (correct only)
//   tiered           a table on verdict and speedup (Dr. Kernel's shape): compile failure,
//                    incorrect, correct without the requested instructions, gaming (FORBIDDEN,
//                    inputs modified, outputs changed between timed calls), and for a PASSED
//                    candidate `slower` below the first tier, else the highest tier reached
//   pass_at_speedup  1 for PASSED at headline speedup >= threshold, else 0
// A verdict the judge could not establish (NOT_RUN: no GPU of the arch; INTERNAL_ERROR: the judge
// itself failed) has no reward at all: nullopt, `null` in JSON, never 0 by accident; so has a
// PASSED candidate whose speedup was not measured under a kind that needs it.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/util/expected.hpp"

#include <nlohmann/json.hpp>

namespace ptxbench::serve {

// Bumped whenever a kind's meaning changes; every reward JSON carries it, and a request or file
// naming another version is refused.
inline constexpr int kRewardVersion = 1;

enum class RewardKind { kWeighted, kTiered, kPassAtSpeedup };
std::string_view to_string(RewardKind kind);  // "weighted", "tiered", "pass_at_speedup"

struct SpeedupTier {
  double min_speedup = 1.0;  // headline speedup at or above this earns `reward`
  double reward = 0;
};

// Dr. Kernel's table (kernel_trainer.yaml) by default.
struct TieredReward {
  double compile_failure = -0.5;  // NO_CODE, COMPILE_ERROR
  double incorrect = -0.3;        // sanitizer, runtime, timeout, shape, numerical failures
  double not_executed = -0.3;     // correct, but the requested instructions did not carry the work
  double gaming = -1.0;           // FORBIDDEN, INPUTS_MODIFIED, outputs changed between timed calls
  double slower = -0.1;           // PASSED below the first tier
  std::vector<SpeedupTier> tiers{{1.0, 0.2}, {1.2, 0.4}, {1.5, 0.6}, {2.0, 0.8}, {3.0, 1.0}};
};

struct RewardConfig {
  RewardKind kind = RewardKind::kWeighted;
  // kWeighted
  double compile = 0.1;
  double correct = 0.3;
  double executed = 0.3;
  double speedup = 0.3;      // per 1x of headline speedup
  double speedup_cap = 3.0;  // a larger speedup earns no more (guards against timing outliers)
  // kTiered
  TieredReward tiered;
  // kPassAtSpeedup
  double threshold = 1.0;
};

// What a trainer shapes its own reward from, read off the evaluation record.
struct RewardParts {
  eval::Verdict verdict = eval::Verdict::kInternalError;
  bool compiled = false;  // compiled and passed the static checks
  bool correct = false;
  bool verified = false;  // PASSED: every requested family executed substantially
  std::vector<eval::FamilyEvidence> families;
  std::optional<double> speedup;                     // headline
  std::optional<double> speed_of_light;              // headline: bound / candidate median
  bool forbidden = false;                            // FORBIDDEN
  bool inputs_modified = false;                      // INPUTS_MODIFIED
  bool outputs_changed_between_timed_calls = false;  // the timing stage found different outputs
};

RewardParts reward_parts(const eval::Evaluation& evaluation);
std::optional<double> reward_of(const eval::Evaluation& evaluation, const RewardConfig& config);

nlohmann::json to_json(const RewardConfig& config);  // {"kind", "version", the kind's fields}
nlohmann::json to_json(const RewardParts& parts);
// Every key optional: "kind" (default weighted), "version" (must be kRewardVersion), and the
// kind's fields (missing ones keep the defaults). Keys of another kind, unknown keys, negative
// weights, unsorted tiers are errors naming `where` and the key.
util::Expected<RewardConfig> reward_config_from_json(const nlohmann::json& json,
                                                     const std::string& where);
util::Expected<RewardConfig> load_reward_config(const std::filesystem::path& path);

}  // namespace ptxbench::serve
