// The verdict of one candidate on one task and arch: every stage with its status and time, the
// compiler's resources, per-kernel instruction-family evidence, and per-workload correctness and
// timing. Serialised as versioned JSON (evaluation_json.hpp); docs/result-schema.md describes it.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/eval/accuracy_figures.hpp"
#include "ptxbench/eval/stage_parts.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::eval {

inline constexpr int kSchemaVersion = 1;

// In pipeline order; the first failing stage stops the chain.
enum class Stage {
  kExtract,
  kLint,
  kCompile,
  kStaticSass,
  kSanitize,
  kCorrectness,
  kDynamicSass,
  kTiming
};

enum class StageStatus {
  kPassed,
  kFailed,
  kSkipped,  // not reached: an earlier stage failed
  kNotRun,   // could not run here (no GPU of the arch): never reported as passed
  // Ran, but a check did not finish (a sanitizer tool timed out or could not run): neither
  // passed nor failed; the chain goes on and the record, summary and feedback say "not checked".
  kNotChecked,
};

// The one overall status. Error-taxonomy order: earlier entries are earlier failures.
enum class Verdict {
  kNoCode,     // the response holds no code block
  kForbidden,  // library use (cuBLAS, cuDNN, dlopen ...) or a foreign kernel at run time
  kCompileError,
  // Compiled, and the machine code alone decides it cannot pass: it holds no kernel at all, or
  // (on a machine whose GPU stages cannot run) a requested family is absent from its SASS.
  kInstructionsAbsent,
  kNotRun,  // compiled and statically checked; GPU stages not run on this machine
  kSanitizerError,
  kRuntimeError,  // fault, abort, out of memory, bad return from run()
  kTimeout,
  kIncorrectShape,  // wrong output shape/dtype or outputs not written
  kIncorrectNumerical,
  kInputsModified,
  kInstructionsNotExecuted,  // correct, but a requested family did not execute substantially
  kPassed,                   // correct and every requested family executed substantially
  kInternalError,            // ptxbench or its environment failed; not the candidate's fault
};

std::string_view to_string(Stage stage);
std::string_view to_string(StageStatus status);
std::string_view to_string(Verdict verdict);  // "COMPILE_ERROR", ...
std::optional<Stage> parse_stage(std::string_view name);
std::optional<StageStatus> parse_stage_status(std::string_view name);
std::optional<Verdict> parse_verdict(std::string_view name);
bool is_correct(Verdict verdict);  // kInstructionsNotExecuted or kPassed
// A verdict only the GPU stages can give (sanitizer through timing: kSanitizerError to kPassed).
bool is_gpu_stage_verdict(Verdict verdict);

// What a cache answered within a stage (the correctness stage's reference cache).
struct CacheCounts {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
};

struct StageRecord {
  Stage stage = Stage::kExtract;
  StageStatus status = StageStatus::kSkipped;
  double seconds = 0;
  std::string message;  // first lines of the reason on failure; what was skipped and why
  std::optional<CacheCounts> reference_cache;  // correctness: trials the judge's cache answered
  // GPU stages: where `seconds` went (stage_parts.hpp) and the processes the stage started.
  StageParts parts;
  int processes = 0;
};

struct CompileInfo {
  std::vector<std::string> command;  // the exact nvcc argv
  double seconds = 0;
  std::string log;  // nvcc + ptxas output (capped)
  bool log_truncated = false;
  bool cached = false;  // the compile of an identical candidate, found in the compile cache
};

// How a kernel was launched, from the CUPTI activity record of its timed launches (the last one
// seen): what ptxas cannot know (dynamic shared memory, the launch shape, setmaxnreg's effect).
struct LaunchResources {
  std::int64_t launches = 0;  // timed launches seen
  int registers_per_thread = 0;
  int static_shared_bytes = 0;
  int dynamic_shared_bytes = 0;
  std::array<int, 3> grid{0, 0, 0};
  std::array<int, 3> block{0, 0, 0};
  std::array<int, 3> cluster{0, 0, 0};  // 0s: no cluster
};

// One kernel (a __global__ function) of the candidate's cubin.
struct KernelReport {
  std::string name;          // mangled, as in the cubin
  std::string display_name;  // demangled when possible
  int registers = 0;
  int shared_bytes = 0;  // static shared memory per ptxas
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  std::map<std::string, std::int64_t> static_families;    // family -> instruction count in SASS
  std::map<std::string, std::int64_t> executed_families;  // family -> warp-level executions
  // What measured executed_families: "probe" (CUPTI SASS metrics in the worker) or "ncu"
  // (Nsight Compute, for kernels the probe cannot see); empty when nothing measured the kernel.
  std::string executed_by;
  // Per tensor-core family executed: the share of the task's FLOPs this kernel's executions do.
  std::map<std::string, double> executed_flop_share;
  std::optional<LaunchResources> launched;  // nullopt: not timed, or no activity record
};

// Evidence for one instruction family across the candidate's kernels.
struct FamilyEvidence {
  std::string family;  // "GMMA", "TMA", "SYNCS", "UTCMMA", ...
  bool requested = false;
  std::int64_t static_count = 0;
  std::optional<std::int64_t> executed_count;  // nullopt: not measured (no GPU, or inconclusive)
  std::optional<double> flop_share;            // tensor-core families: share of the task's FLOPs
  bool substantial = false;  // executed and (for tensor-core families) share >= threshold
};

struct OutputCheck {
  std::string name;
  double max_abs_error = 0;
  double max_rel_error = 0;
  double matched_ratio = 0;
  std::int64_t first_bad_index = -1;  // flat index of the first failing element, -1 if none
  std::int64_t nan_count = 0;
  std::int64_t inf_count = 0;
  bool passed = false;  // by `rule`
  // docs/correctness.md: the rule that decided `passed`, the original element rule's verdict
  // against the library ("matches the library"), and the figures against the high-precision
  // reference ("as accurate as the library"; its verdict is accuracy->passed).
  task::CorrectnessRule rule = task::CorrectnessRule::kMatchesLibrary;
  bool matches_library = false;
  std::optional<AccuracyFigures> accuracy;
  std::string accuracy_unavailable;  // why there are no figures, when there are none
};

struct TimingStats {
  double median_ms = 0;
  double q1_ms = 0;
  double q3_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int samples = 0;
  int dropped_throttled = 0;
  double relative_noise = 0;  // IQR / median, say
  double sm_clock_mhz = 0;    // median SM clock over kept samples
  int kernels_per_call = 0;   // every kernel one call launched, on any stream
  bool converged = false;     // stopped on noise, not on the time limit
};

// The analytic bound of a workload on the GPU that timed it (as SOL-ExecBench reports it): the
// task's FLOPs at the dense BF16 tensor-core peak at the measured SM clock, its bytes (inputs
// read once, outputs written once) at the HBM bandwidth; the bound is the larger time.
struct SpeedOfLight {
  double flops = 0;
  double bytes = 0;
  double peak_tflops = 0;       // dense BF16 at sm_clock_mhz
  double hbm_gbytes_per_s = 0;  // GB/s = 1e9 bytes/s
  double sm_clock_mhz = 0;
  double compute_bound_ms = 0;
  double memory_bound_ms = 0;
  double bound_ms = 0;  // max of the two
  double fraction = 0;  // bound_ms / candidate median: 1 = at the speed of light
};

// Whether a timed workload had the GPU to itself (docs/gpu-engine.md, "Timing alone"): the
// trusted judge asks NVML which processes used the GPU's SMs during the timing process's window;
// a window shared with another process is timed again, up to a bound.
struct TimingWindow {
  std::optional<bool> alone;        // nullopt: not known (no NVML, or no warm judge to ask)
  int attempts = 1;                 // windows timed; the last one is the workload's figure
  std::vector<std::string> others;  // what else used the GPU in the last window
  std::string note;                 // why it is not known, when it is not
};

struct WorkloadResult {
  std::string workload;
  bool headline = false;
  bool unseen = false;  // one of the task's unseen workloads: never named in feedback
  Verdict status = Verdict::kNotRun;
  std::string message;
  int trials = 0;
  std::vector<OutputCheck> outputs;
  std::optional<TimingStats> candidate;
  std::optional<TimingStats> baseline;
  std::optional<double> speedup;               // baseline median / candidate median
  std::optional<double> tflops;                // task FLOPs / candidate median
  std::optional<SpeedOfLight> speed_of_light;  // set with the candidate's timing
  std::optional<TimingWindow> timing_window;   // set with the candidate's timing
};

// Shown and unseen workloads judged apart (docs/correctness.md, "Unseen workloads"): the gap
// between them is what the research measures. `policy` "require": an unseen failure fails the
// verdict; "report": it is recorded here only.
struct Generalisation {
  std::string policy;
  int shown_passed = 0;
  int shown_total = 0;
  int unseen_passed = 0;
  int unseen_total = 0;
  std::vector<std::string> failed_unseen;  // their names, for the record (not for feedback)
};

// Which of a task's pool seeds a verdict drew (correctness/seed_pool.hpp).
struct SeedPoolDraw {
  int size = 0;
  int index = 0;
};

// A verdict of the GPU stages found in the verdict cache (verdict_cache.hpp): the stages,
// workloads and figures are the original's; `from` is when the original was judged.
struct CachedVerdict {
  std::string key;   // the cache entry
  std::string from;  // the original record's created_at
};

struct Evaluation {
  int schema_version = kSchemaVersion;
  std::string task;
  arch::Arch arch = arch::Arch::kHopper;
  std::string source_name;  // file the candidate came from (may be empty)
  std::string source_hash;  // of the extracted code
  Verdict verdict = Verdict::kInternalError;
  std::string message;  // one line: why this verdict
  std::vector<StageRecord> stages;
  CompileInfo compile;
  std::vector<KernelReport> kernels;
  std::vector<FamilyEvidence> families;
  std::vector<WorkloadResult> workloads;
  std::optional<Generalisation> generalisation;  // set when unseen workloads were judged
  // The verdict's input seed: every workload's inputs derive from it and the workload's own
  // seed, so `ptxbench eval --seed` replays them exactly. nullopt: nothing ran on a GPU.
  std::optional<std::uint64_t> input_seed;
  std::optional<SeedPoolDraw> seed_pool;         // set when input_seed came from a seed pool
  std::optional<CachedVerdict> cached;           // set when the verdict came from the verdict cache
  std::map<std::string, std::string> toolchain;  // "nvcc", "cuobjdump", "driver", "gpu", ...
  std::string created_at;                        // ISO-8601 UTC
  std::string sandbox = "off";  // "full" | "partial: <what is missing>" | "off" (sandbox/)
  // How the GPU stages judged it: "warm (device exchange)", "warm (host exchange)" or "fresh"
  // (docs/gpu-engine.md, "The warm judge"); empty: no GPU stage ran.
  std::string judge;
  std::string profile;  // the settings profile that judged it ("rl"); empty: none
  double wall_seconds = 0;

  const StageRecord* find_stage(Stage stage) const;
  StageRecord& stage(Stage stage);  // adds it (skipped) when absent
  bool correct() const { return is_correct(verdict); }
  bool verified() const { return verdict == Verdict::kPassed; }
  // The looser rule of the original research: correct and any requested family executed.
  bool any_requested_executed() const;
  std::optional<double> headline_speedup() const;
};

}  // namespace ptxbench::eval
