// What the report needs of one trajectory (docs/trajectory-format.md): its coordinates and, per
// turn, the outcome and usage. Files are read with the agent's own reader; the conversation is
// dropped while parsing and each evaluation reduced to the few facts the metrics use, so
// thousands of trajectories fit in memory.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/report/compile_error_kind.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::report {

struct TurnRecord {
  int turn = 0;  // 1-based, as recorded
  eval::Verdict verdict = eval::Verdict::kInternalError;
  bool compiled = false;
  bool any_requested_executed = false;  // Evaluation::any_requested_executed()
  std::optional<double> speedup;        // headline workload, when it was timed
  // The headline's fraction of the speed of light (analytic bound / kernel time, 1 = at the
  // bound; SpeedOfLight in eval/evaluation.hpp), when it was timed and the GPU was known.
  std::optional<double> speed_of_light;
  std::optional<CompileErrorKind> compile_error;  // set when verdict is COMPILE_ERROR
  std::optional<std::int64_t> prompt_tokens;
  std::optional<std::int64_t> completion_tokens;
  std::optional<std::int64_t> reasoning_tokens;
  std::optional<double> latency_s;
  std::optional<double> cost_usd;
  // The rule(s) that decided correctness (docs/correctness.md): "as_accurate_as_library",
  // "matches_library", both joined by "+" when outputs differed; "" when nothing was judged.
  std::string correctness_rule;
  // Every unseen workload correct (the record's `generalisation`); nullopt: none were judged.
  std::optional<bool> unseen_correct;
  // What judging the turn cost (judging_table.cpp): the seconds its GPU stages held a GPU
  // (nullopt: they did not run; 0 for a verdict from the verdict cache), whether its compile came
  // from the compile cache (nullopt: nothing was compiled) and its verdict from the verdict cache.
  std::optional<double> gpu_seconds;
  std::optional<bool> compile_cached;
  bool verdict_cached = false;
  // What the judge's reference cache answered in the correctness stage (nullopt: it was off).
  std::optional<eval::CacheCounts> reference_cache;
  // The GPU stages that ran, with their parts and process starts (stage_parts_summary.hpp);
  // empty for a cached verdict or one that never reached a GPU.
  std::vector<eval::StageRecord> gpu_stage_costs;
  // The GPU stages could not run on that machine (its correctness stage is `not_run`).
  bool gpu_stages_not_run = false;

  bool correct() const { return eval::is_correct(verdict); }
  // Whether correctness was decided: not for NOT_RUN, nor for INSTRUCTIONS_ABSENT decided from
  // the machine code alone where the GPU stages could not run. INSTRUCTIONS_ABSENT of a file
  // with no device code (a host-only run()) is final on any machine, and so judged.
  bool judged() const { return verdict != eval::Verdict::kNotRun && !gpu_stages_not_run; }
  bool verified() const { return verdict == eval::Verdict::kPassed; }
};

struct TrajectoryRecord {
  std::string run;  // label of the run it was read from
  std::string id;
  std::string model;
  std::string task;
  std::string arch;
  std::string context;  // context level
  std::string split;    // "train", "heldout"; empty when the file does not say
  int sample = 0;
  int max_turns = 0;  // 0 when the file does not say
  std::string status;
  std::string exit_status;
  std::vector<TurnRecord> turns;  // ascending turn numbers
  std::filesystem::path source;
};

// A trajectory file's text; an Error names the file and what is wrong with it.
util::Expected<TrajectoryRecord> parse_trajectory(std::string_view json_text,
                                                  const std::filesystem::path& source);
TrajectoryRecord record_of(const agent::Trajectory& trajectory);

// The turn facts of one evaluation.
TurnRecord turn_from_evaluation(int turn, const eval::Evaluation& evaluation);

}  // namespace ptxbench::report
