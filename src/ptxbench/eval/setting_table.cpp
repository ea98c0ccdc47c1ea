#include "ptxbench/eval/setting_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "ptxbench/eval/cache_folders.hpp"
#include "ptxbench/eval/correctness/seed_pool.hpp"
#include "ptxbench/util/check.hpp"
#include "ptxbench/util/field_reader.hpp"

namespace ptxbench::eval {
namespace {

using Json = nlohmann::json;
using S = EvaluationSettings;

// Ranges of the numbers (docs/running.md, "Evaluation settings").
constexpr std::int64_t kMaxParallel = 1024;
constexpr std::int64_t kMaxCompileTimeoutSeconds = 24 * 3600;
constexpr std::int64_t kMaxCompileMemoryGiB = 4096;
constexpr std::int64_t kMaxRacecheckTimeoutSeconds = 3600;
constexpr std::int64_t kMaxGpuConcurrency = 64;

Json path_or_null(const std::filesystem::path& path) {
  return path.empty() ? Json() : Json(path.string());
}

// "strict, best-effort or off": the words an error and the help use for a row's choices.
std::string choice_list(const std::vector<std::string_view>& choices) {
  if (choices.size() < 2) return fmt::format("{}", fmt::join(choices, ""));
  return fmt::format("{} or {}", fmt::join(choices.begin(), choices.end() - 1, ", "),
                     choices.back());
}

// A folder setting: an existing file (or anything that is not a folder) there is refused, in a
// file as on the command line (a cache pointed at /dev/null would silently never cache).
std::string set_folder(std::filesystem::path& target, const Json& value) {
  const std::string path = value.get<std::string>();
  if (path.empty()) return "expected a folder, got an empty path";
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error && error != std::errc::no_such_file_or_directory)
    return fmt::format("{}: {}", path, error.message());
  if (std::filesystem::exists(status) && !std::filesystem::is_directory(status))
    return fmt::format("{}: exists and is not a directory", path);
  target = path;
  return {};
}

// The presets (docs/running.md, "Profiles"): `benchmark` is the defaults, made for figures a
// reader compares (fresh input seeds every verdict, nothing reused); `rl` is made for training
// streams that resubmit candidates (a seed pool so inputs recur, the reference, compile and
// verdict caches, several candidates sharing a GPU).
constexpr int kRlSeedPool = 16;
constexpr int kRlGpuConcurrency = 4;

std::string apply_profile(EvaluationSettings& s, const std::string& name) {
  if (name == "benchmark") {
    const EvaluationSettings defaults;
    s.seed_pool = defaults.seed_pool;
    s.judge.reference_cache = defaults.judge.reference_cache;
    s.compile_cache = defaults.compile_cache;
    s.verdict_cache = defaults.verdict_cache;
    s.gpu_concurrency = defaults.gpu_concurrency;
    s.judge.mode = defaults.judge.mode;
  } else if (name == "rl") {
    s.seed_pool = kRlSeedPool;
    s.judge.reference_cache = true;
    s.compile_cache = default_compile_cache_dir();
    s.verdict_cache = default_verdict_cache_dir();
    s.gpu_concurrency = kRlGpuConcurrency;
    s.judge.mode = JudgeMode::kWarm;
  }
  s.profile = name;
  return {};
}

std::vector<SettingRow> make_table() {
  std::vector<SettingRow> rows;
  rows.push_back(
      {.setting = Setting::kProfile,
       .field = "profile",
       .flag = "--profile",
       .help = "a preset of the settings below, named in every record it judges: benchmark (the "
               "defaults: fresh input seeds, nothing reused) or rl (training streams: a seed pool "
               "of 16, the reference, compile and verdict caches under the cache folder, 4 "
               "candidates sharing a GPU); a setting given beside it wins",
       .choices = {"benchmark", "rl"},
       .get = [](const S& s) { return Json(s.profile); },
       .set = [](S& s, const Json& v) { return apply_profile(s, v.get<std::string>()); }});
  rows.push_back(
      {.setting = Setting::kSandbox,
       .field = "sandbox",
       .flag = "--sandbox",
       .help = "strict (every layer or nothing runs), best-effort (runs with what this machine "
               "has, says what is missing) or off: the sandbox of candidate code and the compiler "
               "(docs/sandbox.md)",
       .choices = {"strict", "best-effort", "off"},
       .decides_verdict = true,
       .get = [](const S& s) { return Json(std::string(sandbox::to_string(s.sandbox))); },
       .set =
           [](S& s, const Json& v) {
             s.sandbox = sandbox::parse_mode(v.get<std::string>()).value();
             return std::string();
           }});
  rows.push_back({.setting = Setting::kCompileTimeout,
                  .field = "compile_timeout_s",
                  .flag = "--compile-timeout",
                  .help = "seconds nvcc may take per candidate (whole seconds)",
                  .type = SettingType::kInteger,
                  .min = 1,
                  .max = kMaxCompileTimeoutSeconds,
                  .decides_verdict = true,
                  .get = [](const S& s) { return Json(s.compile_timeout.count()); },
                  .set =
                      [](S& s, const Json& v) {
                        s.compile_timeout = std::chrono::seconds(v.get<std::int64_t>());
                        return std::string();
                      }});
  rows.push_back({.setting = Setting::kCompileMemory,
                  .field = "compile_memory_gib",
                  .flag = "--compile-memory",
                  .help =
                      "GiB of address space each nvcc (and the tools it starts) may use, in every "
                      "sandbox mode; 0: no limit",
                  .type = SettingType::kInteger,
                  .min = 0,
                  .max = kMaxCompileMemoryGiB,
                  .decides_verdict = true,
                  .get = [](const S& s) { return Json(s.compile_memory_limit_bytes >> 30); },
                  .set =
                      [](S& s, const Json& v) {
                        s.compile_memory_limit_bytes = v.get<std::uint64_t>() << 30;
                        return std::string();
                      }});
  rows.push_back(
      {.setting = Setting::kParallel,
       .field = "parallel",
       .flag = "--parallel,--jobs,--workers",
       .help = "candidates compiling at once (0: one per CPU core); the GPU stages of compiled "
               "candidates run meanwhile, --gpu-concurrency at once per GPU",
       .type = SettingType::kInteger,
       .min = 0,
       .max = kMaxParallel,
       .get = [](const S& s) { return Json(s.parallel); },
       .set =
           [](S& s, const Json& v) {
             s.parallel = v.get<int>();
             return std::string();
           }});
  rows.push_back({.setting = Setting::kGpu,
                  .field = "gpu",
                  .flag = "--no-gpu",
                  .help =
                      "stop after compile and static SASS (verdict NOT_RUN); without it the GPU "
                      "stages run where a GPU of the arch is present",
                  .type = SettingType::kBoolean,
                  .flag_sets = false,
                  .get = [](const S& s) { return Json(s.gpu); },
                  .set =
                      [](S& s, const Json& v) {
                        s.gpu = v.get<bool>();
                        return std::string();
                      }});
  rows.push_back({.setting = Setting::kGpus,
                  .field = "gpus",
                  .flag = "--gpus",
                  .help = "all, or a list of GPUs (0,1,3): one GPU slot per GPU, each judging "
                          "--gpu-concurrency candidates at once while others compile",
                  .unset = "one slot",
                  .get = [](const S& s) { return s.gpus.empty() ? Json() : Json(s.gpus); },
                  .set =
                      [](S& s, const Json& v) {
                        s.gpus = v.get<std::string>();
                        return s.gpus.empty() ? std::string("expected all or a list such as 0,1,3")
                                              : std::string();
                      }});
  rows.push_back(
      {.setting = Setting::kGpuConcurrency,
       .field = "gpu_concurrency",
       .flag = "--gpu-concurrency",
       .help = "candidates judged at once per GPU: their sanitize and correctness share it "
               "within its free memory, the proof and timing hold it alone (1: one at a time; "
               "docs/running.md, \"Sizing\")",
       .type = SettingType::kInteger,
       .min = 1,
       .max = kMaxGpuConcurrency,
       .get = [](const S& s) { return Json(s.gpu_concurrency); },
       .set =
           [](S& s, const Json& v) {
             s.gpu_concurrency = v.get<int>();
             return std::string();
           }});
  rows.push_back({.setting = Setting::kCorrectnessRule,
                  .field = "correctness_rule",
                  .flag = "--correctness-rule",
                  .help = "the rule that decides every task's correctness instead of each task's "
                          "tolerance.rule (docs/correctness.md)",
                  .choices = {"as_accurate_as_library", "matches_library"},
                  .unset = "each task's",
                  .decides_verdict = true,
                  .get =
                      [](const S& s) {
                        return s.correctness_rule
                                   ? Json(std::string(task::to_string(*s.correctness_rule)))
                                   : Json();
                      },
                  .set =
                      [](S& s, const Json& v) {
                        s.correctness_rule = task::parse_correctness_rule(v.get<std::string>());
                        return std::string();
                      }});
  rows.push_back(
      {.setting = Setting::kRacecheckTimeout,
       .field = "racecheck_timeout_s",
       .flag = "--racecheck-timeout",
       .help = "seconds racecheck may take on the smallest workload beyond the correctness check "
               "it runs beside; past them the sanitize stage reads \"not checked\", never "
               "\"passed\"",
       .type = SettingType::kInteger,
       .min = 1,
       .max = kMaxRacecheckTimeoutSeconds,
       .decides_verdict = true,
       .get = [](const S& s) { return Json(s.judge.racecheck_timeout.count()); },
       .set =
           [](S& s, const Json& v) {
             s.judge.racecheck_timeout = std::chrono::seconds(v.get<std::int64_t>());
             return std::string();
           }});
  rows.push_back(
      {.setting = Setting::kTimedWorkloads,
       .field = "time_workloads",
       .flag = "--time-workloads",
       .help = "workloads the timing stage times: headline, all, or a comma list of workload "
               "names (M8192,M8828; a task lacking one skips it); the verdict and headline "
               "speedup always come from the headline",
       .decides_verdict = true,
       .get = [](const S& s) { return Json(s.judge.timed_workloads.spec()); },
       .set =
           [](S& s, const Json& v) {
             auto timed = parse_timed_workloads(v.get<std::string>());
             if (!timed) return timed.error().message;
             s.judge.timed_workloads = std::move(*timed);
             return std::string();
           }});
  rows.push_back({.setting = Setting::kKeepArtifacts,
                  .field = "keep_artifacts",
                  .flag = "--keep-artifacts",
                  .help = "keep sources, objects and cubins in this folder",
                  .type = SettingType::kFolder,
                  .get = [](const S& s) { return path_or_null(s.keep_artifacts); },
                  .set = [](S& s, const Json& v) { return set_folder(s.keep_artifacts, v); }});
  rows.push_back({.setting = Setting::kCompileCache,
                  .field = "compile_cache",
                  .flag = "--compile-cache",
                  .help =
                      "keep compiles in this folder and reuse them for byte-identical candidates "
                      "compiled with the same nvcc argv and version",
                  .type = SettingType::kFolder,
                  .get = [](const S& s) { return path_or_null(s.compile_cache); },
                  .set = [](S& s, const Json& v) { return set_folder(s.compile_cache, v); }});
  rows.push_back(
      {.setting = Setting::kUnseen,
       .field = "unseen",
       .flag = "--unseen",
       .help = "the tasks' unseen workloads (sizes no prompt shows): require (an unseen failure "
               "fails the verdict), report (recorded in `generalisation` only) or off",
       .choices = {"require", "report", "off"},
       .decides_verdict = true,
       .get = [](const S& s) { return Json(std::string(correctness::to_string(s.judge.unseen))); },
       .set =
           [](S& s, const Json& v) {
             s.judge.unseen = correctness::parse_unseen_policy(v.get<std::string>()).value();
             return std::string();
           }});
  rows.push_back({.setting = Setting::kSeed,
                  .field = "seed",
                  .flag = "--seed",
                  .help =
                      "the input seed of every verdict (a record's input_seed replays its inputs "
                      "exactly); 0 keeps the task files' seeds",
                  .type = SettingType::kInteger,
                  .min = 0,
                  .max = std::numeric_limits<std::int64_t>::max(),
                  .unset = "drawn per verdict",
                  .get = [](const S& s) { return s.input_seed ? Json(*s.input_seed) : Json(); },
                  .set =
                      [](S& s, const Json& v) {
                        s.input_seed = v.get<std::uint64_t>();
                        return std::string();
                      }});
  rows.push_back(
      {.setting = Setting::kSeedPool,
       .field = "seed_pool",
       .flag = "--seed-pool",
       .help = "input seeds kept per task: each verdict draws one (recorded; --seed replays it), "
               "so inputs recur and the verdict and reference caches can answer; 0: a fresh "
               "seed per verdict",
       .type = SettingType::kInteger,
       .min = 0,
       .max = correctness::kMaxSeedPool,
       .get = [](const S& s) { return Json(s.seed_pool); },
       .set =
           [](S& s, const Json& v) {
             s.seed_pool = v.get<int>();
             return std::string();
           }});
  rows.push_back(
      {.setting = Setting::kVerdictCache,
       .field = "verdict_cache",
       .flag = "--verdict-cache",
       .help = "keep GPU verdicts in this folder and reuse them for byte-identical candidates "
               "judged with the same task, seed, settings, toolchain and GPU (needs --seed or "
               "--seed-pool)",
       .type = SettingType::kFolder,
       .get = [](const S& s) { return path_or_null(s.verdict_cache); },
       .set = [](S& s, const Json& v) { return set_folder(s.verdict_cache, v); },
       // Fresh seeds every verdict make every key new: the cache would never answer.
       .check = [](const S& s) -> std::string {
         if (s.verdict_cache.empty() || s.seed_pool > 0 || s.input_seed) return {};
         return "needs --seed or --seed-pool (seed, seed_pool): with a fresh input seed every "
                "verdict no verdict recurs, so the cache would never answer";
       }});
  rows.push_back(
      {.setting = Setting::kReferenceCache,
       .field = "reference_cache",
       .flag = "--reference-cache",
       .help = "the trusted judge keeps the library's and the high-precision reference's outputs "
               "per trial and reuses them when the trial's inputs recur (needs --seed-pool or "
               "--seed)",
       .type = SettingType::kBoolean,
       .get = [](const S& s) { return Json(s.judge.reference_cache); },
       .set =
           [](S& s, const Json& v) {
             s.judge.reference_cache = v.get<bool>();
             return std::string();
           }});
  rows.push_back(
      {.setting = Setting::kJudge,
       .field = "judge",
       .flag = "--judge",
       .help = "warm: one long-lived trusted judge per GPU keeps its CUDA context, library plans "
               "and reference outputs, and exchanges inputs and outputs with one candidate "
               "process per verdict on the device; fresh: new judge processes for every verdict "
               "(docs/gpu-engine.md, \"The warm judge\")",
       .choices = {"warm", "fresh"},
       .get = [](const S& s) { return Json(std::string(to_string(s.judge.mode))); },
       .set =
           [](S& s, const Json& v) {
             s.judge.mode = v.get<std::string>() == "warm" ? JudgeMode::kWarm : JudgeMode::kFresh;
             return std::string();
           }});
  return rows;
}

// Markdown cell text: pipes would split the cell.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::span<const SettingRow> setting_table() {
  static const std::vector<SettingRow> table = [] {
    auto rows = make_table();
    for (std::size_t i = 0; i < rows.size(); ++i)
      PTXBENCH_CHECK(static_cast<std::size_t>(rows[i].setting) == i,
                     "the setting table is out of the Setting enum's order");
    return rows;
  }();
  return table;
}

const SettingRow& row_of(Setting setting, std::span<const SettingRow> table) {
  for (const auto& row : table) {
    if (row.setting == setting) return row;
  }
  PTXBENCH_CHECK(false, "a setting without a row in its table");
  return table.front();
}

std::optional<std::string> apply_setting(const SettingRow& row, const Json& value,
                                         EvaluationSettings& settings) {
  switch (row.type) {
    case SettingType::kInteger:
      if (auto problem = util::integer_problem(value, row.min, row.max)) return problem;
      break;
    case SettingType::kBoolean:
      if (!value.is_boolean()) return std::string("expected true or false");
      break;
    case SettingType::kText:
    case SettingType::kFolder:
      if (!value.is_string()) return std::string("expected a string");
      if (!row.choices.empty() && std::find(row.choices.begin(), row.choices.end(),
                                            value.get<std::string>()) == row.choices.end())
        return fmt::format("expected {} (got {})", choice_list(row.choices), value.dump());
      break;
  }
  std::string problem = row.set(settings, value);
  if (!problem.empty()) return problem;
  return std::nullopt;
}

util::Expected<Json> setting_value_from_text(const SettingRow& row, std::string_view text) {
  switch (row.type) {
    case SettingType::kInteger: {
      std::int64_t number = 0;
      const auto* end = text.data() + text.size();
      auto [ptr, error] = std::from_chars(text.data(), end, number);
      if (error != std::errc() || ptr != end)
        return util::make_error(
            fmt::format("expected an integer from {} to {} (got {})", row.min, row.max, text));
      return Json(number);
    }
    case SettingType::kBoolean:
      if (text == "true") return Json(true);
      if (text == "false") return Json(false);
      return util::make_error(fmt::format("expected true or false (got {})", text));
    case SettingType::kText:
    case SettingType::kFolder:
      return Json(std::string(text));
  }
  return util::make_error("unknown setting type");
}

std::string setting_value_name(const SettingRow& row) {
  switch (row.type) {
    case SettingType::kInteger:
      return fmt::format("INT in [{} - {}]", row.min, row.max);
    case SettingType::kBoolean:
      return "";
    case SettingType::kFolder:
      return "DIR";
    case SettingType::kText:
      return row.choices.empty() ? "TEXT" : fmt::format("{{{}}}", fmt::join(row.choices, ","));
  }
  return "TEXT";
}

std::string setting_value_text(const SettingRow& row, const Json& value) {
  if (value.is_null()) return std::string(row.unset);
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

std::string settings_markdown(std::span<const SettingRow> table) {
  const EvaluationSettings defaults;
  std::string out = "| field | flag | default | values | meaning |\n|---|---|---|---|---|\n";
  for (const auto& row : table) {
    std::string values;
    switch (row.type) {
      case SettingType::kInteger:
        values = fmt::format("{} to {}", row.min, row.max);
        break;
      case SettingType::kBoolean:
        values = "true, false";
        break;
      case SettingType::kText:
        values = row.choices.empty() ? "text" : fmt::format("{}", fmt::join(row.choices, ", "));
        break;
      case SettingType::kFolder:
        values = "a folder";
        break;
    }
    out +=
        fmt::format("| `{}` | `{}` | {} | {} | {} |\n", row.field, row.name(),
                    cell(setting_value_text(row, row.get(defaults))), cell(values), cell(row.help));
  }
  return out;
}

}  // namespace ptxbench::eval
