// The typed rows that flow between the Fixit stages, one JSON object per line in the Fixit
// folder (docs/fixit.md): mine -> MinedRow, repair -> RepairRow, verify -> VerifiedRow,
// explain -> ExplainedRow. Every row names the mined row it derives from, and the mined row
// names the run, trajectory and turn it came from, so an exported row traces back to its source.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/prompt/context_level.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::fixit {

// Where a turn came from.
struct TurnSource {
  std::string run;         // the run directory, as given
  std::string trajectory;  // trajectory id
  int turn = 1;
  std::string model;
  std::string reply_file;  // the replayed file the reply came from, when it was replayed
};

// One failing turn of a run: what the model saw, what it replied, what the evaluator said.
struct MinedRow {
  std::string id;  // "m-" + hash of (task, arch, normalised code)
  TurnSource source;
  std::string task;
  arch::Arch arch = arch::Arch::kHopper;
  prompt::ContextLevel context = prompt::ContextLevel::kNone;
  std::string split = "train";
  eval::Verdict verdict = eval::Verdict::kInternalError;
  // A replayed control's declared verdict, for turns whose GPU stages did not run here.
  std::optional<eval::Verdict> expected_verdict;
  std::string system_prompt;
  std::string task_prompt;
  std::string reply;
  std::string code;
  std::string feedback;
  std::string error_text;  // the verdict's message and the failing stage's message
  std::string source_hash;
  std::string normalized_hash;
};

// The verdict kind used for strata and counts: the verdict, or the control's declared one when
// the GPU stages were not run here.
eval::Verdict verdict_kind(const MinedRow& row);

enum class RepairStatus {
  kRepaired,     // a turn met the requirement (PASSED, or correct, and the speedup floor)
  kUnjudged,     // a turn compiled but its GPU stages did not run here: verify decides
  kNotRepaired,  // no turn met it
};
std::string_view to_string(RepairStatus status);
std::optional<RepairStatus> parse_repair_status(std::string_view name);

struct RepairRow {
  std::string mined_id;
  std::string teacher;
  std::string trajectory;  // in FIXIT/repair/
  RepairStatus status = RepairStatus::kNotRepaired;
  int turns = 0;
  int chosen_turn = 0;  // the turn whose code is the repair (0: none)
  std::string reply;
  std::string code;
  eval::Evaluation evaluation;  // of the chosen turn
  // Why a row is not repaired or unjudged: the teacher's error (a command that does not exist,
  // an endpoint that refuses) or the verdict of the last turn that missed the bar.
  std::string reason;
};

enum class VerifyStatus { kVerified, kUnverified, kRejected };
std::string_view to_string(VerifyStatus status);
std::optional<VerifyStatus> parse_verify_status(std::string_view name);

// Repairs, their verification and their explanations are keyed by (mined row, teacher): a second
// teacher's repair of a row is kept beside the first. Rows written before the teacher was part
// of the key have an empty `teacher` and belong to the folder's one teacher of that time.
struct VerifiedRow {
  std::string mined_id;
  std::string teacher;  // of the repair verified
  VerifyStatus status = VerifyStatus::kRejected;
  std::string reason;
  std::string gpu;  // the device that judged it, from the evaluation's toolchain
  eval::Evaluation evaluation;
};

struct ExplainedRow {
  std::string mined_id;
  std::string teacher;  // of the repair explained
  std::string explainer;
  std::string length_bin;
  std::string reasoning;  // empty when every attempt was rejected
  int attempts = 0;
  std::vector<std::string> rejections;  // why each rejected attempt was rejected
  bool accepted() const { return !reasoning.empty(); }
};

nlohmann::json to_json(const MinedRow& row);
nlohmann::json to_json(const RepairRow& row);
nlohmann::json to_json(const VerifiedRow& row);
nlohmann::json to_json(const ExplainedRow& row);
util::Expected<MinedRow> mined_row_from_json(const nlohmann::json& json);
util::Expected<RepairRow> repair_row_from_json(const nlohmann::json& json);
util::Expected<VerifiedRow> verified_row_from_json(const nlohmann::json& json);
util::Expected<ExplainedRow> explained_row_from_json(const nlohmann::json& json);

}  // namespace ptxbench::fixit
