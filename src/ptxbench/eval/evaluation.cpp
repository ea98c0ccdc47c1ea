#include "ptxbench/eval/evaluation.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace ptxbench::eval {
namespace {

template <class E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return "UNKNOWN";
}

template <class E, std::size_t N>
std::optional<E> parse_name(const std::array<std::pair<E, std::string_view>, N>& table,
                            std::string_view name) {
  for (const auto& [e, n] : table) {
    if (n == name) return e;
  }
  return std::nullopt;
}

constexpr std::array<std::pair<Stage, std::string_view>, 8> kStages{{
    {Stage::kExtract, "extract"},
    {Stage::kLint, "lint"},
    {Stage::kCompile, "compile"},
    {Stage::kStaticSass, "static_sass"},
    {Stage::kSanitize, "sanitize"},
    {Stage::kCorrectness, "correctness"},
    {Stage::kDynamicSass, "dynamic_sass"},
    {Stage::kTiming, "timing"},
}};

constexpr std::array<std::pair<StageStatus, std::string_view>, 5> kStageStatuses{{
    {StageStatus::kPassed, "passed"},
    {StageStatus::kFailed, "failed"},
    {StageStatus::kSkipped, "skipped"},
    {StageStatus::kNotRun, "not_run"},
    {StageStatus::kNotChecked, "not_checked"},
}};

constexpr std::array<std::pair<Verdict, std::string_view>, 14> kVerdicts{{
    {Verdict::kNoCode, "NO_CODE"},
    {Verdict::kForbidden, "FORBIDDEN"},
    {Verdict::kCompileError, "COMPILE_ERROR"},
    {Verdict::kInstructionsAbsent, "INSTRUCTIONS_ABSENT"},
    {Verdict::kNotRun, "NOT_RUN"},
    {Verdict::kSanitizerError, "SANITIZER_ERROR"},
    {Verdict::kRuntimeError, "RUNTIME_ERROR"},
    {Verdict::kTimeout, "TIMEOUT"},
    {Verdict::kIncorrectShape, "INCORRECT_SHAPE"},
    {Verdict::kIncorrectNumerical, "INCORRECT_NUMERICAL"},
    {Verdict::kInputsModified, "INPUTS_MODIFIED"},
    {Verdict::kInstructionsNotExecuted, "INSTRUCTIONS_NOT_EXECUTED"},
    {Verdict::kPassed, "PASSED"},
    {Verdict::kInternalError, "INTERNAL_ERROR"},
}};

}  // namespace

std::string_view to_string(Stage stage) { return name_of(kStages, stage); }
std::string_view to_string(StageStatus status) { return name_of(kStageStatuses, status); }
std::string_view to_string(Verdict verdict) { return name_of(kVerdicts, verdict); }
std::optional<Stage> parse_stage(std::string_view name) { return parse_name(kStages, name); }
std::optional<StageStatus> parse_stage_status(std::string_view name) {
  return parse_name(kStageStatuses, name);
}
std::optional<Verdict> parse_verdict(std::string_view name) { return parse_name(kVerdicts, name); }

bool is_correct(Verdict verdict) {
  return verdict == Verdict::kPassed || verdict == Verdict::kInstructionsNotExecuted;
}

// The enum is in error-taxonomy order: the GPU stages' verdicts stand between NOT_RUN and
// INTERNAL_ERROR.
bool is_gpu_stage_verdict(Verdict verdict) {
  return verdict > Verdict::kNotRun && verdict < Verdict::kInternalError;
}

const StageRecord* Evaluation::find_stage(Stage s) const {
  auto it = std::find_if(stages.begin(), stages.end(),
                         [s](const StageRecord& r) { return r.stage == s; });
  return it == stages.end() ? nullptr : &*it;
}

StageRecord& Evaluation::stage(Stage s) {
  auto it = std::find_if(stages.begin(), stages.end(),
                         [s](const StageRecord& r) { return r.stage == s; });
  if (it != stages.end()) return *it;
  stages.push_back(StageRecord{.stage = s});
  std::sort(stages.begin(), stages.end(),
            [](const StageRecord& a, const StageRecord& b) { return a.stage < b.stage; });
  return *std::find_if(stages.begin(), stages.end(),
                       [s](const StageRecord& r) { return r.stage == s; });
}

bool Evaluation::any_requested_executed() const {
  if (!correct()) return false;
  return std::any_of(families.begin(), families.end(), [](const FamilyEvidence& f) {
    return f.requested && f.executed_count.value_or(0) > 0;
  });
}

std::optional<double> Evaluation::headline_speedup() const {
  for (const auto& w : workloads) {
    if (w.headline) return w.speedup;
  }
  return std::nullopt;
}

}  // namespace ptxbench::eval
