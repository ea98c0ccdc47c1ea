#include "ptxbench/report/trajectory_record.hpp"

#include "ptxbench/report/stage_parts_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "ptxbench/prompt/context_level.hpp"

namespace ptxbench::report {
namespace {
using nlohmann::json;

// The time a verdict held its GPU slot, from its stage records: sanitize runs beside
// correctness, so the longer of the two counts, then the probe and timing. nullopt: no GPU stage
// ran; 0: the verdict came from the verdict cache.
std::optional<double> gpu_seconds_of(const eval::Evaluation& e) {
  auto ran = [&e](eval::Stage stage) -> std::optional<double> {
    const auto* record = e.find_stage(stage);
    if (record == nullptr || record->status == eval::StageStatus::kSkipped ||
        record->status == eval::StageStatus::kNotRun)
      return std::nullopt;
    return record->seconds;
  };
  const auto sanitize = ran(eval::Stage::kSanitize), correctness = ran(eval::Stage::kCorrectness),
             probe = ran(eval::Stage::kDynamicSass), timing = ran(eval::Stage::kTiming);
  if (!sanitize && !correctness && !probe && !timing) return std::nullopt;
  if (e.cached) return 0.0;
  return std::max(sanitize.value_or(0), correctness.value_or(0)) + probe.value_or(0) +
         timing.value_or(0);
}

bool gpu_stages_not_run(const eval::Evaluation& e) {
  const auto* correctness = e.find_stage(eval::Stage::kCorrectness);
  return correctness != nullptr && correctness->status == eval::StageStatus::kNotRun;
}

bool compiled_of(const eval::Evaluation& e) {
  if (const auto* stage = e.find_stage(eval::Stage::kCompile)) {
    return stage->status == eval::StageStatus::kPassed;
  }
  switch (e.verdict) {
    case eval::Verdict::kNoCode:
    case eval::Verdict::kForbidden:
    case eval::Verdict::kCompileError:
    case eval::Verdict::kInternalError:
      return false;
    default:
      return true;
  }
}

// Parses a trajectory file but keeps the messages array empty: the conversation is most of a
// file and the report does not read it.
json parse_without_messages(std::string_view text) {
  bool in_messages = false;
  json::parser_callback_t drop_messages = [&in_messages](int depth, json::parse_event_t event,
                                                         json& parsed) {
    if (depth == 1 && event == json::parse_event_t::key) in_messages = parsed == "messages";
    const bool element_done =
        event == json::parse_event_t::object_end || event == json::parse_event_t::value;
    return !(in_messages && depth == 2 && element_done);
  };
  return json::parse(text, drop_messages, /*allow_exceptions=*/false);
}

}  // namespace

namespace {

std::string correctness_rule_of(const eval::Evaluation& evaluation) {
  std::set<std::string> rules;
  for (const auto& workload : evaluation.workloads) {
    for (const auto& output : workload.outputs)
      rules.insert(std::string(task::to_string(output.rule)));
  }
  return fmt::format("{}", fmt::join(rules, "+"));
}

}  // namespace

TurnRecord turn_from_evaluation(int turn, const eval::Evaluation& evaluation) {
  TurnRecord record{.turn = turn,
                    .verdict = evaluation.verdict,
                    .compiled = compiled_of(evaluation),
                    .any_requested_executed = evaluation.any_requested_executed(),
                    .speedup = evaluation.headline_speedup(),
                    .correctness_rule = correctness_rule_of(evaluation),
                    .gpu_stages_not_run = gpu_stages_not_run(evaluation)};
  if (const auto& g = evaluation.generalisation; g && g->unseen_total > 0)
    record.unseen_correct = g->unseen_passed == g->unseen_total;
  for (const auto& workload : evaluation.workloads) {
    if (workload.headline && workload.speed_of_light && workload.speed_of_light->fraction > 0)
      record.speed_of_light = workload.speed_of_light->fraction;
  }
  record.gpu_seconds = gpu_seconds_of(evaluation);
  if (const auto* compile = evaluation.find_stage(eval::Stage::kCompile);
      compile && (compile->status == eval::StageStatus::kPassed ||
                  compile->status == eval::StageStatus::kFailed))
    record.compile_cached = evaluation.compile.cached;
  record.verdict_cached = evaluation.cached.has_value();
  record.gpu_stage_costs = gpu_stage_costs(evaluation);
  if (const auto* correctness = evaluation.find_stage(eval::Stage::kCorrectness))
    record.reference_cache = correctness->reference_cache;
  if (evaluation.verdict == eval::Verdict::kCompileError) {
    const auto* stage = evaluation.find_stage(eval::Stage::kCompile);
    const std::string message =
        stage && !stage->message.empty() ? stage->message : evaluation.message;
    record.compile_error = classify_compile_error(message, evaluation.compile.log);
  }
  return record;
}

TrajectoryRecord record_of(const agent::Trajectory& trajectory) {
  const auto& info = trajectory.info;
  TrajectoryRecord record{.id = info.id,
                          .model = info.model,
                          .task = info.task,
                          .arch = std::string(arch::to_string(info.arch)),
                          .context = std::string(prompt::to_string(info.context_level)),
                          .split = info.split,
                          .sample = info.sample,
                          .max_turns = info.max_turns,
                          .status = std::string(agent::to_string(info.status)),
                          .exit_status = info.exit_status};
  for (const auto& turn : trajectory.turns) {
    TurnRecord r = turn_from_evaluation(turn.turn, turn.evaluation);
    r.prompt_tokens = turn.usage.prompt_tokens;
    r.completion_tokens = turn.usage.completion_tokens;
    r.reasoning_tokens = turn.usage.reasoning_tokens;
    r.latency_s = turn.latency_s;
    r.cost_usd = turn.cost_usd;
    record.turns.push_back(std::move(r));
  }
  std::stable_sort(record.turns.begin(), record.turns.end(),
                   [](const TurnRecord& a, const TurnRecord& b) { return a.turn < b.turn; });
  return record;
}

util::Expected<TrajectoryRecord> parse_trajectory(std::string_view json_text,
                                                  const std::filesystem::path& source) {
  json document = parse_without_messages(json_text);
  if (document.is_discarded()) return util::make_error(source.string() + ": not valid JSON");
  auto trajectory = agent::trajectory_from_json(document);
  if (!trajectory) return util::make_error(source.string() + ": " + trajectory.error().message);
  TrajectoryRecord record = record_of(*trajectory);
  record.source = source;
  // The agent's reader defaults a missing split to "train"; the report looks such tasks up.
  const auto& info = document.at("info");
  if (!info.contains("split") || !info.at("split").is_string()) record.split.clear();
  return record;
}

}  // namespace ptxbench::report
