// Everything that decides a verdict or its cost, one type for every command that judges
// candidates (eval, run, serve, demo, fixit). Each setting is one row of the setting table
// (setting_table.hpp): its field name, flag, help, range and parser; the flags
// (cli/settings_flags.hpp), the readers of run.yaml / fixit.yaml / study files / service
// requests (read_settings below), the JSON writer, the verdict cache's key and the documentation
// table are all derived from that table. A command declares which settings it offers; a flag or
// field for one it does not offer is an error, never silently ignored.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/eval/correctness/generalisation.hpp"
#include "ptxbench/eval/timing/timed_workloads.hpp"
#include "ptxbench/sandbox/policy.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval {

// How the trusted side of the GPU stages lives (docs/gpu-engine.md, "The warm judge"): warm, one
// long-lived judge process per GPU that keeps its CUDA context, library plans and reference
// outputs and hands inputs and outputs to one candidate process per verdict on the device; or
// fresh, new judge processes for every verdict (the most isolated, the slowest).
enum class JudgeMode { kWarm, kFresh };
std::string_view to_string(JudgeMode mode);

// What the GPU stages of a verdict are told, handed to them whole (gpu_pipeline/).
struct JudgeSettings {
  JudgeMode mode = JudgeMode::kWarm;
  // Racecheck's deadline beyond the correctness check it runs beside; then "not checked".
  std::chrono::seconds racecheck_timeout{15};
  TimedWorkloads timed_workloads;  // default: the headline only
  // The tasks' unseen workloads (docs/correctness.md): fail the verdict, only report, or skip.
  correctness::UnseenPolicy unseen = correctness::UnseenPolicy::kRequire;
  // The judge keeps the library's and the high-precision reference's outputs per trial in a host
  // cache (reference_cache/, under the cache folder); it hits only when inputs recur: with
  // seed_pool > 0 or a fixed input_seed.
  bool reference_cache = false;
};

struct EvaluationSettings {
  // The preset the other settings started from ("benchmark", "rl"; setting_table.cpp); recorded
  // in every verdict it judges.
  std::string profile = "benchmark";
  sandbox::Mode sandbox = sandbox::Mode::kStrict;  // docs/sandbox.md
  std::chrono::seconds compile_timeout{180};       // per candidate
  // RLIMIT_AS of each nvcc (and the tools it starts); 0: none.
  std::uint64_t compile_memory_limit_bytes = std::uint64_t{16} << 30;
  int parallel = 0;  // compiles at once; 0: one per CPU core
  bool gpu = true;   // run the GPU stages where a GPU of the arch is present
  // "all" or a list ("0,1,3"): one GPU slot per GPU; empty: one slot on whatever GPU the worker
  // finds.
  std::string gpus;
  // Candidates judged at once per GPU: their sanitize and correctness stages share it, the proof
  // and timing hold it alone (scheduler.hpp); 1 judges one candidate at a time.
  int gpu_concurrency = 1;
  // Overrides every task's tolerance.rule (docs/correctness.md); unset: each task's own.
  std::optional<task::CorrectnessRule> correctness_rule;
  std::filesystem::path keep_artifacts;  // empty: a temporary folder, emptied verdict by verdict
  // Where compiles are kept and found again (compile/compile_cache.hpp); empty: no cache.
  std::filesystem::path compile_cache;
  // Every verdict's input seed (a record's input_seed replays it); nullopt: drawn per verdict.
  // The engine's front (seeded_gpu_stages.hpp) is the one place a verdict's seed is chosen.
  std::optional<std::uint64_t> input_seed;
  // Seeds per task a verdict draws its input seed from (correctness/seed_pool.hpp); 0: fresh.
  int seed_pool = 0;
  // Where verdicts are kept and found again (verdict_cache.hpp); empty: no cache.
  std::filesystem::path verdict_cache;
  JudgeSettings judge;
};

// One setting: its row in the setting table. Kept as an index so a table may grow (tests add a
// row and see it in every form).
enum class Setting : std::uint8_t {
  kProfile,  // first: a profile sets the others, which the settings given beside it override
  kSandbox,
  kCompileTimeout,
  kCompileMemory,
  kParallel,
  kGpu,
  kGpus,
  kGpuConcurrency,
  kCorrectnessRule,
  kRacecheckTimeout,
  kTimedWorkloads,
  kKeepArtifacts,
  kCompileCache,
  kUnseen,
  kSeed,
  kSeedPool,
  kVerdictCache,
  kReferenceCache,
  kJudge,
};
inline constexpr int kBuiltinSettings = static_cast<int>(Setting::kJudge) + 1;

class SettingSet {
 public:
  constexpr SettingSet() = default;
  constexpr SettingSet(Setting setting)  // NOLINT(google-explicit-constructor)
      : bits_(bit(setting)) {}
  constexpr SettingSet operator|(SettingSet other) const { return from_bits(bits_ | other.bits_); }
  constexpr SettingSet without(SettingSet other) const { return from_bits(bits_ & ~other.bits_); }
  constexpr bool has(Setting setting) const { return (bits_ & bit(setting)) != 0; }
  // Every setting, also rows a test adds to its own table.
  static constexpr SettingSet all() { return from_bits(~std::uint64_t{0}); }

 private:
  static constexpr std::uint64_t bit(Setting setting) {
    return std::uint64_t{1} << static_cast<unsigned>(setting);
  }
  static constexpr SettingSet from_bits(std::uint64_t bits) {
    SettingSet set;
    set.bits_ = bits;
    return set;
  }
  std::uint64_t bits_ = 0;
};
constexpr SettingSet operator|(Setting a, Setting b) {
  return SettingSet(a) | SettingSet(b);
}

struct SettingRow;  // setting_table.hpp
// The built-in table (setting_table.cpp).
std::span<const SettingRow> setting_table();

// Reads the members of a mapping into `settings` (what is absent keeps its value). Members for a
// setting outside `offered` are errors ("FIELD: not a setting of this command"), as are unknown
// members, except `caller_fields`, which the caller reads itself. Messages are
// "WHERE.FIELD: problem" (`where` may be empty).
util::Expected<EvaluationSettings> read_settings(
    const nlohmann::json& mapping, EvaluationSettings settings, SettingSet offered,
    std::string_view where, const std::vector<std::string>& caller_fields = {},
    std::span<const SettingRow> table = setting_table());

// The offered settings as a mapping read_settings reads back (run.json's "evaluation"); unset
// values are left out.
nlohmann::json settings_to_json(const EvaluationSettings& settings, SettingSet offered,
                                std::span<const SettingRow> table = setting_table());

// The settings that decide a verdict, for the verdict cache's key.
nlohmann::json verdict_deciding_settings(const EvaluationSettings& settings,
                                         std::span<const SettingRow> table = setting_table());

// What is wrong with the settings as a whole (each row's `check`, e.g. a verdict cache without
// a seed), in the row's flag and field name; nullopt: nothing. open_engine refuses them.
std::optional<std::string> settings_problem(const EvaluationSettings& settings,
                                            std::span<const SettingRow> table = setting_table());

// Compiles at once: `parallel`, or one per CPU core when it is 0.
int parallel_compiles(const EvaluationSettings& settings);

// The correctness rule of the settings laid over a task (the engine judges every task through
// it; prompts show the rule that judges, so commands that render prompts lay it over their
// suite too).
void apply_correctness_rule(const EvaluationSettings& settings, task::Task& task);
void apply_correctness_rule(const EvaluationSettings& settings, std::vector<task::Task>& suite);

}  // namespace ptxbench::eval
