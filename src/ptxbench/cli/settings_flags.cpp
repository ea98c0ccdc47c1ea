#include "ptxbench/cli/settings_flags.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <limits>

namespace ptxbench::cli {
namespace {

// A usage error, not an internal one, when the path cannot become the artifacts directory.
const CLI::Validator kDirectoryOrAbsent(
    [](std::string& path) {
      std::error_code error;
      const auto status = std::filesystem::status(path, error);
      if (error && error != std::errc::no_such_file_or_directory)
        return path + ": " + error.message();
      if (std::filesystem::exists(status) && !std::filesystem::is_directory(status))
        return path + ": exists and is not a directory";
      return std::string();
    },
    "DIR");

}  // namespace

void add_settings_flags(CLI::App& command, SettingsFlags& flags, eval::SettingSet offered,
                        const eval::EvaluationSettings& defaults) {
  using eval::Setting;
  if (offered.has(Setting::kSandbox)) {
    command
        .add_option("--sandbox", flags.sandbox,
                    "strict (default: every layer or nothing runs), best-effort (runs with what "
                    "this machine has, says what is missing) or off; docs/sandbox.md")
        ->check(CLI::IsMember({"strict", "best-effort", "off"}));
  }
  if (offered.has(Setting::kParallel)) {
    command
        .add_option("--parallel,--jobs,--workers", flags.parallel,
                    "Candidates compiling at once (0: one per CPU core); the GPU stages run one "
                    "candidate at a time per GPU while others compile")
        ->check(CLI::Range(0, eval::kMaxParallel))
        ->default_str(std::to_string(defaults.parallel));
  }
  if (offered.has(Setting::kCompileTimeout)) {
    command
        .add_option("--compile-timeout", flags.compile_timeout_seconds,
                    "Seconds nvcc may take per candidate")
        ->check(CLI::Range(1, eval::kMaxCompileTimeoutSeconds))
        ->default_str(std::to_string(defaults.compile_timeout.count()));
  }
  if (offered.has(Setting::kCompileMemory)) {
    command
        .add_option("--compile-memory", flags.compile_memory_gib,
                    "GiB of address space each nvcc (and the tools it starts) may use; 0: no limit")
        ->check(CLI::Range(0, eval::kMaxCompileMemoryGiB))
        ->default_str(std::to_string(defaults.compile_memory_limit_bytes >> 30));
  }
  if (offered.has(Setting::kGpu)) {
    command.add_flag("--no-gpu", flags.no_gpu,
                     "Stop after compile and static SASS even where a GPU is present (verdict "
                     "NOT_RUN)");
  }
  if (offered.has(Setting::kGpus)) {
    command.add_option("--gpus", flags.gpus,
                       "all, or a list of GPUs (0,1,3): one worker per GPU, each judging one "
                       "candidate at a time while the others compile (default: one worker)");
  }
  if (offered.has(Setting::kGpuConcurrency)) {
    command
        .add_option("--gpu-concurrency", flags.gpu_concurrency,
                    "Candidates judged at once per GPU: their sanitize and correctness share it "
                    "within its free memory, the proof and timing hold it alone (1: one at a "
                    "time; docs/running.md, \"Sizing\")")
        ->check(CLI::Range(1, eval::kMaxGpuConcurrency))
        ->default_str(std::to_string(defaults.gpu_concurrency));
  }
  if (offered.has(Setting::kCorrectnessRule)) {
    command.add_option("--correctness-rule", flags.correctness_rule,
                       "as_accurate_as_library or matches_library: the rule that decides every "
                       "task's correctness (default: each task's tolerance.rule; "
                       "docs/correctness.md)");
  }
  if (offered.has(Setting::kRacecheckTimeout)) {
    command
        .add_option("--racecheck-timeout", flags.racecheck_timeout_seconds,
                    "Seconds racecheck may take on the smallest workload beyond the correctness "
                    "check it runs beside; past them the sanitize stage reads \"not checked\", "
                    "never \"passed\" (memcheck has its own 60 s)")
        ->check(CLI::Range(1, eval::kMaxRacecheckTimeoutSeconds))
        ->default_str(std::to_string(defaults.racecheck_timeout.count()));
  }
  if (offered.has(Setting::kTimedWorkloads)) {
    command
        .add_option("--time-workloads", flags.time_workloads,
                    "Workloads the timing stage times: headline (default), all, or a comma list "
                    "of workload names (M8192,M8828; a task lacking one skips it). The verdict "
                    "and headline speedup always come from the headline workload")
        ->default_str(defaults.timed_workloads.spec());
  }
  if (offered.has(Setting::kKeepArtifacts)) {
    command
        .add_option("--keep-artifacts", flags.keep_artifacts,
                    "Keep sources, objects and cubins in this directory")
        ->check(kDirectoryOrAbsent);
  }
  if (offered.has(Setting::kUnseen)) {
    command
        .add_option("--unseen", flags.unseen,
                    "The tasks' unseen workloads (sizes no prompt shows; docs/correctness.md): "
                    "require (an unseen failure fails the verdict), report (recorded in "
                    "`generalisation` only, to measure the seen/unseen gap) or off")
        ->default_str(std::string(eval::correctness::to_string(defaults.unseen)));
  }
  if (offered.has(Setting::kSeed)) {
    command
        .add_option("--seed", flags.seed,
                    "The input seed of every verdict (its record's input_seed): replays a "
                    "verdict's inputs exactly; 0 keeps the task files' seeds (default: drawn per "
                    "verdict)")
        ->check(CLI::Range(std::uint64_t{0},
                           static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())));
  }
  if (offered.has(Setting::kCompileCache)) {
    command
        .add_option("--compile-cache", flags.compile_cache,
                    "Keep compiles in this directory and reuse them for byte-identical candidates "
                    "(same nvcc argv and version; docs/running.md). Off when not given")
        ->check(kDirectoryOrAbsent);
  }
}

util::Expected<eval::EvaluationSettings> settings_from_flags(const SettingsFlags& flags,
                                                             eval::EvaluationSettings settings) {
  if (flags.sandbox) {
    auto mode = sandbox::parse_mode(*flags.sandbox);
    if (!mode) return util::make_error("--sandbox: " + mode.error().message);
    settings.sandbox = *mode;
  }
  if (flags.parallel) settings.parallel = *flags.parallel;
  if (flags.compile_timeout_seconds)
    settings.compile_timeout = std::chrono::seconds(*flags.compile_timeout_seconds);
  if (flags.compile_memory_gib)
    settings.compile_memory_limit_bytes = static_cast<std::uint64_t>(*flags.compile_memory_gib)
                                          << 30;
  if (flags.no_gpu) settings.gpu = false;
  if (flags.gpus) settings.gpus = *flags.gpus;
  if (flags.gpu_concurrency) settings.gpu_concurrency = *flags.gpu_concurrency;
  if (flags.correctness_rule) {
    auto rule = task::parse_correctness_rule(*flags.correctness_rule);
    if (!rule) {
      return util::make_error(
          fmt::format("--correctness-rule {}: expected as_accurate_as_library or matches_library",
                      *flags.correctness_rule));
    }
    settings.correctness_rule = rule;
  }
  if (flags.racecheck_timeout_seconds)
    settings.racecheck_timeout = std::chrono::seconds(*flags.racecheck_timeout_seconds);
  if (flags.time_workloads) {
    auto timed = eval::parse_timed_workloads(*flags.time_workloads);
    if (!timed) return util::make_error("--time-workloads " + timed.error().message);
    settings.timed_workloads = *timed;
  }
  if (flags.keep_artifacts) settings.keep_artifacts = *flags.keep_artifacts;
  if (flags.compile_cache) settings.compile_cache = *flags.compile_cache;
  if (flags.unseen) {
    auto policy = eval::correctness::parse_unseen_policy(*flags.unseen);
    if (!policy)
      return util::make_error("--unseen " + *flags.unseen + ": expected require, report or off");
    settings.unseen = *policy;
  }
  if (flags.seed) settings.input_seed = *flags.seed;
  return settings;
}

std::shared_ptr<eval::Engine> open_command_engine(std::string_view command,
                                                  const eval::EvaluationSettings& settings) {
  auto engine = eval::open_engine(settings);
  if (!engine) {
    fmt::print(stderr, "ptxbench {}: {}\n", command, engine.error().message);
    return nullptr;
  }
  if (auto warning = (*engine)->warning())
    fmt::print(stderr, "ptxbench {}: WARNING: {}\n", command, *warning);
  return *engine;
}

}  // namespace ptxbench::cli
