// The seam between the CPU pipeline (stages 1-4) and the GPU stages 5-8 (sanitize, correctness,
// dynamic SASS, timing). The real implementation runs the candidate in ptxbench-worker
// processes; tests substitute a fake.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/eval/correctness/generalisation.hpp"
#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/timing/timed_workloads.hpp"
#include "ptxbench/sass/sass.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::eval {

// What stages 1-4 produced and the GPU stages consume. The shared object is the binary that
// was inspected; it is never rebuilt.
struct CompiledCandidate {
  std::filesystem::path shared_object;  // built by nvcc, exports __tvm_ffi_run
  std::filesystem::path cubin;          // extracted from it, for the arch
  std::string source_hash;
  sass::SassModule sass;  // per-kernel, per-pc disassembly of that cubin
};

// What a command may choose of the GPU stages.
struct GpuStageChoices {
  TimedWorkloads timed_workloads;  // what the timing stage times besides the headline
  // Racecheck's deadline (docs/gpu-engine.md): past it the check reads "not checked".
  std::chrono::milliseconds racecheck_timeout{std::chrono::seconds(15)};
  // The task's unseen workloads (docs/correctness.md): fail the verdict, only report, or skip.
  correctness::UnseenPolicy unseen = correctness::UnseenPolicy::kRequire;
  std::optional<std::uint64_t> input_seed;  // nullopt: drawn per verdict (and recorded)
  bool reference_cache = false;             // the judge's host cache of reference outputs
};

class GpuStages {
 public:
  virtual ~GpuStages() = default;
  // Whether a GPU that runs `arch` code is present; when false `why` says what was found.
  virtual bool available(arch::Arch arch, std::string& why) = 0;
  // Runs stages 5-8, filling their StageRecords, workloads, families' executed counts and the
  // verdict. Never throws for anything the candidate does.
  virtual void run(const task::Task& task, const CompiledCandidate& candidate,
                   Evaluation& evaluation) = 0;
  // What names the GPU and its driver and libraries, for the verdict cache's key (asked after
  // available() said yes); empty: unknown, and nothing is cached.
  virtual std::string identity() { return {}; }
};

}  // namespace ptxbench::eval
