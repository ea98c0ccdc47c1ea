// Stage 5: compute-sanitizer (memcheck, then racecheck) around one small run of the candidate in
// ptxbench-worker. The verdict comes from the tool's exit status (--error-exitcode) and its
// summary counts ("ERROR SUMMARY: N errors", "RACECHECK SUMMARY: ... (N errors, M warnings)"),
// never from one message format: an out-of-bounds global write prints "Invalid __global__ write"
// and no "Program hit" line. Only a definite report fails a candidate; a timeout, a tool that
// cannot run or a worker that fails under the tool without a report is inconclusive and left to
// the correctness stage, which runs the same code without the tool. After a timeout the later
// tools are skipped: a program that hangs under one tool hangs under the next, and each would
// spend its whole deadline finding that out (a deadlocked kernel cost 206 s with both).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptxbench/eval/worker/worker_client.hpp"
#include "ptxbench/sass/sass.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {

enum class SanitizerTool { kMemcheck, kRacecheck };
std::string_view to_string(SanitizerTool tool);  // "memcheck", "racecheck"

// The exit status compute-sanitizer is told to use when it reports an error.
inline constexpr int kSanitizerErrorExitCode = 86;

// What the tool's text says, whatever the tool.
struct SanitizerSummary {
  std::optional<std::int64_t> errors;     // nullopt: no summary line (the tool did not finish)
  std::optional<std::int64_t> warnings;   // racecheck only
  std::vector<std::string> first_errors;  // first reported problems, prefix stripped, capped
  bool program_failed = false;            // "Target application returned an error"
};
SanitizerSummary parse_sanitizer_output(std::string_view text);

enum class SanitizerOutcome {
  kClean,          // the summary reports no error and the program succeeded
  kErrors,         // the tool reported errors: the candidate fails
  kProgramFailed,  // no report, but the program failed under the tool (inconclusive)
  kTimedOut,       // inconclusive: the tool slows kernels down a lot
  kToolFailed,     // the tool could not run or gave no summary (inconclusive)
  kSkipped,        // not run: an earlier tool timed out on the same program (inconclusive)
  kStopped,        // stopped by the caller (SanitizerRequest::stop): inconclusive
  // Not run: it cannot find anything in this candidate (racecheck on a kernel without a
  // shared-memory instruction). Not inconclusive: nothing was left unchecked.
  kNotApplicable,
};
std::string_view to_string(SanitizerOutcome outcome);

struct SanitizerRun {
  SanitizerTool tool = SanitizerTool::kMemcheck;
  SanitizerOutcome outcome = SanitizerOutcome::kToolFailed;
  SanitizerSummary summary;
  std::string ending;  // how the process ended ("exit 86", "timed out after 60 s", ...)
  double seconds = 0;
  // The tool's process, with the worker's own time inside it when its reply came through.
  worker::ProcessCost cost;
};

struct SanitizerRequest {
  std::filesystem::path compute_sanitizer;  // empty: find_compute_sanitizer()
  // The worker's small run of the candidate, e.g. {"/path/ptxbench-worker", "<mode>"}.
  std::vector<std::string> program_argv;
  std::optional<std::string> program_stdin;  // the worker's job, when it reads one
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::filesystem::path>
      read_paths;  // folders the program reads (a sandbox binds them)
  std::vector<SanitizerTool> tools = {SanitizerTool::kMemcheck, SanitizerTool::kRacecheck};
  // Tools left out because they cannot find anything here (racecheck_applies()): reported as
  // "not applicable", never as passed.
  std::vector<SanitizerTool> not_needed;
  // Correct candidates took 2-30 s under both tools on the H200 (docs/gpu-results); a hang costs
  // the memcheck deadline plus the correctness stage's call deadline.
  std::chrono::milliseconds memcheck_timeout{std::chrono::seconds(60)};
  // Racecheck slows shared-memory-heavy FFMA kernels most (a slow but correct candidate spent its
  // whole 60 s deadline there): bounded so that such a verdict stays near 30 s. A racecheck that
  // does not finish is "not checked", never "passed".
  std::chrono::milliseconds racecheck_timeout{std::chrono::seconds(15)};
  // Set to true when the result is no longer wanted (the correctness run of the same code, beside
  // it, timed out): the running tool is stopped and the later ones are not run.
  std::shared_ptr<const std::atomic<bool>> stop;
  // True while the correctness check beside the tools runs: a tool past its deadline goes on
  // meanwhile (it delays nothing then), so a long correctness check lets racecheck finish on a
  // kernel it needs longer for (the attention backward: ~18 s) while a quick one keeps the bound.
  std::shared_ptr<const std::atomic<bool>> beside_running;
  // Kernels the harness itself launches in the program before run() (the library that derives
  // inputs, e.g. cuDNN's forward for O and LSE): a name substring. They are excluded from the
  // tools when the tool can filter kernels, and errors located only in them are never charged
  // to the candidate. Empty: none.
  std::string harness_kernel_substring;
  // Bytes of guard memory after every allocation when the tool offers --padding: without it an
  // access just past one buffer lands in the next one and is not reported.
  std::uint64_t padding_bytes = 4096;
};

struct SanitizerReport {
  std::vector<SanitizerRun> runs;
  bool found_errors() const;  // some tool reported an error
  // The tools that did not finish their check (timed out, could not run, skipped, the program
  // failed under them), as "racecheck (timed out after 15.0 s)": the stage is "not checked".
  std::vector<std::string> not_checked() const;
  // One paragraph for the stage record and the model's feedback: per tool, the outcome and,
  // on errors, the first reported problems.
  std::string message() const;
};

// The kernels that reported errors are located in ("... at <kernel>+0x1c0"), as the tool names
// them (demangled, possibly with parameters), without repeats.
std::vector<std::string> kernels_in_errors(const SanitizerReport& report);

// Those of `named` that are none of the candidate's kernels (`candidate_kernels`: the mangled
// names of its cubin; a name matches when its identifier appears in one of them): errors inside a
// library's kernel (cuBLAS's nvjet_*) mean a kernel the candidate did not build ran in run().
std::vector<std::string> foreign_kernels(const std::vector<std::string>& named,
                                         const std::vector<std::string>& candidate_kernels);

// Whether the reported errors lie in the candidate's own code: a location or device frame
// ("at F+0x..", "Device Frame: F+0x..") in one of its kernels, or line information in its source
// file ("in candidate.cu:736"). An error inside a __device__ function the candidate wrote is
// located in that function, not in a kernel, so names alone would call it foreign.
bool errors_in_candidate_code(const SanitizerReport& report,
                              const std::vector<std::string>& candidate_kernels,
                              std::string_view source_file);

// The kernels of a library that the errors are located in, when the errors are not in the
// candidate's own code (errors_in_candidate_code); empty otherwise. Non-empty means a kernel the
// candidate did not build ran inside run(): the sanitize stage's FORBIDDEN.
std::vector<std::string> library_kernels_in_errors(
    const SanitizerReport& report, const std::vector<std::string>& candidate_kernels,
    std::string_view source_file);

// Of `kernels` (library_kernels_in_errors), those not launched by the harness itself
// (`harness_kernel_substring`, see SanitizerRequest): what the candidate is charged with.
std::vector<std::string> kernels_not_from_harness(const std::vector<std::string>& kernels,
                                                  std::string_view harness_kernel_substring);

// The substring that names the kernels the harness launches before run() for `op_type` (cuDNN's
// generated kernels for the attention backward, whose inputs O and LSE come from the forward pass),
// unless a candidate kernel carries it too (then nothing is excused). Empty when the harness
// launches none.
std::string harness_kernel_substring(task::OpType op_type,
                                     const std::vector<std::string>& candidate_kernels);

// Runs the tools at once, each on its own run of the program; a tool that reports errors stops
// the others.
SanitizerReport run_sanitizer(util::ProcessRunner& runner, const SanitizerRequest& request);

// Whether racecheck can find anything in `module`: some kernel has a shared-memory instruction
// (LDS, STS, LDSM, STSM, ATOMS, LDGSTS, shared-memory barriers, the bulk copies and tensor-core
// operands that read it). A kernel with none has no shared memory to race on.
bool racecheck_applies(const sass::SassModule& module);

// The outcome of one finished tool process.
SanitizerOutcome judge_sanitizer_run(const util::ProcessResult& result,
                                     const SanitizerSummary& summary);

// $PATH, then $CUDA_HOME/bin, then /usr/local/cuda/bin.
std::optional<std::filesystem::path> find_compute_sanitizer();

// The workload to sanitize: the task's smallest by FLOPs (the tools slow kernels 10-100x).
const task::Workload& smallest_workload(const task::Task& task);

}  // namespace ptxbench::eval
