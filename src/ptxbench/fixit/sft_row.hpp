// The exported training row (docs/fixit.md "Row format"), as JSON Lines that Hugging Face
// `datasets` loads directly: chat `messages` with a per-message `loss` flag and `reasoning` (the
// thinking that precedes the reply: the trainer puts it in the model's thinking channel through
// its chat template, or before the content where the template has none), and the provenance
// that traces the row to its run, trajectory, turn and evaluations. Every message carries all
// keys and every provenance object the same keys, and the card declares the column types
// (`dataset_features_yaml`), so an export without GPU verdicts loads with the same schema as one
// with them.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptxbench::fixit {

struct SftMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
  bool loss = false;
  std::string reasoning;  // assistant messages: the reasoning before `content`; "" when none
};

struct Provenance {
  std::string run;
  std::string trajectory;
  int turn = 0;
  std::string task;
  std::string arch;
  std::string context;
  std::string verdict;  // of the source turn (fixit: the failure; kernelgen: PASSED or NOT_RUN)
  std::string teacher;  // who wrote the trained-on reply: the repair teacher, or the run's model
  std::string evaluation_source_hash;  // of the code the trained-on reply carries
  // Beyond the agreed keys: how the row was made.
  std::string mined_id;
  std::string repair_trajectory;
  int repair_turn = 0;
  std::string explainer;
  std::string length_bin;
  std::string recipe;
  std::string verification;  // verified | unverified
  std::string gpu;
};

struct SftRow {
  std::string id;
  std::string kind;   // "fixit" or "kernelgen"
  std::string split;  // "train" or "heldout"
  bool verified = false;
  std::vector<SftMessage> messages;
  Provenance provenance;
};

nlohmann::json to_json(const SftRow& row);

// The rows' column types as a dataset card's `dataset_info: features:` YAML block (indented
// under `dataset_info:`), so `datasets` never infers a type from one export's values.
std::string dataset_features_yaml();

}  // namespace ptxbench::fixit
