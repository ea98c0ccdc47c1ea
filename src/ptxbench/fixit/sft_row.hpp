// The exported training row (docs/fixit.md "Row format"), as JSON Lines that Hugging Face
// `datasets` loads directly: chat `messages` with a per-message `loss` flag, and the provenance
// that traces the row to its run, trajectory, turn and evaluations. Every message carries all
// three keys and every provenance object the same keys, so the loader infers one schema.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptxbench::fixit {

struct SftMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
  bool loss = false;
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

}  // namespace ptxbench::fixit
