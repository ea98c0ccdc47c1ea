#include "ptxbench/eval/settings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <thread>

#include "ptxbench/util/field_reader.hpp"

namespace ptxbench::eval {
namespace {

using Json = nlohmann::json;

// One field into `settings`; a problem goes to `fields`.
void read_field(Setting setting, std::string_view key, util::FieldReader& fields,
                EvaluationSettings& settings) {
  auto text = [&]() -> std::optional<std::string> {
    std::optional<std::string> value;
    fields.read(key, value);
    return value;
  };
  switch (setting) {
    case Setting::kSandbox:
      if (auto value = text()) {
        auto mode = sandbox::parse_mode(*value);
        if (!mode) return fields.fail(key, "expected strict, best-effort or off");
        settings.sandbox = *mode;
      }
      return;
    case Setting::kCompileTimeout: {
      // Whole seconds: 0.4 would become 0 and every compile would "time out".
      std::int64_t seconds = settings.compile_timeout.count();
      fields.read_integer(key, 1, kMaxCompileTimeoutSeconds, seconds);
      settings.compile_timeout = std::chrono::seconds(seconds);
      return;
    }
    case Setting::kCompileMemory: {
      std::int64_t gib = static_cast<std::int64_t>(settings.compile_memory_limit_bytes >> 30);
      const bool present = fields.has(key);
      fields.read_integer(key, 0, kMaxCompileMemoryGiB, gib);
      if (present) settings.compile_memory_limit_bytes = static_cast<std::uint64_t>(gib) << 30;
      return;
    }
    case Setting::kParallel:
      return fields.read_integer(key, 0, kMaxParallel, settings.parallel);
    case Setting::kGpu:
      return fields.read(key, settings.gpu);
    case Setting::kGpus:
      return fields.read(key, settings.gpus);
    case Setting::kGpuConcurrency:
      return fields.read_integer(key, 1, kMaxGpuConcurrency, settings.gpu_concurrency);
    case Setting::kCorrectnessRule:
      if (auto value = text()) {
        auto rule = task::parse_correctness_rule(*value);
        if (!rule) return fields.fail(key, "expected as_accurate_as_library or matches_library");
        settings.correctness_rule = rule;
      }
      return;
    case Setting::kRacecheckTimeout: {
      std::int64_t seconds = settings.racecheck_timeout.count();
      fields.read_integer(key, 1, kMaxRacecheckTimeoutSeconds, seconds);
      settings.racecheck_timeout = std::chrono::seconds(seconds);
      return;
    }
    case Setting::kTimedWorkloads:
      if (auto value = text()) {
        auto timed = parse_timed_workloads(*value);
        if (!timed) return fields.fail(key, timed.error().message);
        settings.timed_workloads = *timed;
      }
      return;
    case Setting::kKeepArtifacts:
      if (auto value = text()) settings.keep_artifacts = *value;
      return;
    case Setting::kCompileCache:
      if (auto value = text()) settings.compile_cache = *value;
      return;
    case Setting::kUnseen:
      if (auto value = text()) {
        auto policy = correctness::parse_unseen_policy(*value);
        if (!policy) return fields.fail(key, "expected require, report or off");
        settings.unseen = *policy;
      }
      return;
    case Setting::kSeed:
      if (fields.has(key)) {
        std::int64_t seed = 0;
        fields.read_integer(key, 0, std::numeric_limits<std::int64_t>::max(), seed);
        settings.input_seed = static_cast<std::uint64_t>(seed);
      }
      return;
  }
}

}  // namespace

const std::vector<SettingName>& setting_names() {
  static const std::vector<SettingName> names{
      {Setting::kSandbox, "sandbox", "--sandbox"},
      {Setting::kCompileTimeout, "compile_timeout_s", "--compile-timeout"},
      {Setting::kCompileMemory, "compile_memory_gib", "--compile-memory"},
      {Setting::kParallel, "parallel", "--parallel"},
      {Setting::kGpu, "gpu", "--no-gpu"},
      {Setting::kGpus, "gpus", "--gpus"},
      {Setting::kGpuConcurrency, "gpu_concurrency", "--gpu-concurrency"},
      {Setting::kCorrectnessRule, "correctness_rule", "--correctness-rule"},
      {Setting::kRacecheckTimeout, "racecheck_timeout_s", "--racecheck-timeout"},
      {Setting::kTimedWorkloads, "time_workloads", "--time-workloads"},
      {Setting::kKeepArtifacts, "keep_artifacts", "--keep-artifacts"},
      {Setting::kCompileCache, "compile_cache", "--compile-cache"},
      {Setting::kUnseen, "unseen", "--unseen"},
      {Setting::kSeed, "seed", "--seed"},
  };
  return names;
}

util::Expected<EvaluationSettings> read_settings(const Json& mapping, EvaluationSettings settings,
                                                 SettingSet offered, std::string_view where,
                                                 const std::vector<std::string>& caller_fields) {
  util::FieldReader fields(mapping, where.empty() ? std::string() : std::string(where) + ".");
  for (const auto& key : caller_fields) fields.mark(key);
  for (const auto& name : setting_names()) {
    if (offered.has(name.setting)) {
      read_field(name.setting, name.field, fields, settings);
    } else if (fields.has(name.field)) {
      fields.mark(name.field);
      fields.fail(name.field, "not a setting of this command");
    }
  }
  if (const auto& problem = fields.finish(); !problem.empty()) return util::make_error(problem);
  return settings;
}

Json settings_to_json(const EvaluationSettings& settings, SettingSet offered) {
  Json json = Json::object();
  auto put = [&](Setting setting, Json value) {
    if (!offered.has(setting)) return;
    for (const auto& name : setting_names())
      if (name.setting == setting) json[std::string(name.field)] = std::move(value);
  };
  put(Setting::kGpu, settings.gpu);
  put(Setting::kParallel, settings.parallel);
  put(Setting::kCompileTimeout, settings.compile_timeout.count());
  put(Setting::kCompileMemory, settings.compile_memory_limit_bytes >> 30);
  put(Setting::kSandbox, std::string(sandbox::to_string(settings.sandbox)));
  if (!settings.gpus.empty()) put(Setting::kGpus, settings.gpus);
  if (settings.gpu_concurrency != 1) put(Setting::kGpuConcurrency, settings.gpu_concurrency);
  if (settings.correctness_rule)
    put(Setting::kCorrectnessRule, std::string(task::to_string(*settings.correctness_rule)));
  put(Setting::kRacecheckTimeout, settings.racecheck_timeout.count());
  put(Setting::kTimedWorkloads, settings.timed_workloads.spec());
  if (!settings.keep_artifacts.empty())
    put(Setting::kKeepArtifacts, settings.keep_artifacts.string());
  if (!settings.compile_cache.empty()) put(Setting::kCompileCache, settings.compile_cache.string());
  put(Setting::kUnseen, std::string(correctness::to_string(settings.unseen)));
  if (settings.input_seed) put(Setting::kSeed, *settings.input_seed);
  return json;
}

int parallel_compiles(const EvaluationSettings& settings) {
  if (settings.parallel > 0) return settings.parallel;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void apply_correctness_rule(const EvaluationSettings& settings, std::vector<task::Task>& suite) {
  if (!settings.correctness_rule) return;
  for (auto& task : suite) task.tolerance.rule = *settings.correctness_rule;
}

}  // namespace ptxbench::eval
