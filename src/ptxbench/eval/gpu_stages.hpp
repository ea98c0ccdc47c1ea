// The seam between the CPU pipeline (stages 1-4) and the GPU stages 5-8 (sanitize, correctness,
// dynamic SASS, timing). The real implementation (gpu_pipeline/stage_sequence.hpp) runs the
// candidate in ptxbench-worker processes; tests substitute a fake.
//
// The stages split where the GPU may be shared (docs/gpu-engine.md, "Sharing a GPU"): sanitize
// and correctness (the candidate's trials and the judge's references) may run beside other
// candidates' stages; the proof (CUPTI's SASS metrics and ncu need the GPU idle: another
// profiler or kernel empties or breaks their counts) and timing need the GPU alone.
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

// A GPU's memory as its worker reported it when asked (available()).
struct DeviceMemory {
  std::uint64_t total_bytes = 0;
  std::uint64_t free_bytes = 0;
};

class GpuStages {
 public:
  virtual ~GpuStages() = default;
  // Whether a GPU that runs `arch` code is present; when false `why` says what was found.
  virtual bool available(arch::Arch arch, std::string& why) = 0;
  // Runs stages 5-8 with the GPU to itself, filling their StageRecords, workloads, families'
  // executed counts and the verdict. Never throws for anything the candidate does.
  virtual void run(const task::Task& task, const CompiledCandidate& candidate,
                   Evaluation& evaluation) = 0;
  // What names the GPU and its driver and libraries, for the verdict cache's key (asked after
  // available() said yes); empty: unknown, and nothing is cached.
  virtual std::string identity() { return {}; }

  // The same stages in two phases, for a scheduler that shares the GPU. run_shared runs those
  // that may share it with other candidates' stages and returns whether run_exclusive must
  // follow (false: the verdict is decided); run_exclusive runs those that need the GPU alone.
  // The defaults keep every stage exclusive: a GpuStages that does not split runs `run` there.
  virtual bool run_shared(const task::Task& /*task*/, const CompiledCandidate& /*candidate*/,
                          Evaluation& /*evaluation*/) {
    return true;
  }
  virtual void run_exclusive(const task::Task& task, const CompiledCandidate& candidate,
                             Evaluation& evaluation) {
    run(task, candidate, evaluation);
  }
  // The GPU's memory once available() said yes; nullopt: unknown (no memory bound).
  virtual std::optional<DeviceMemory> device_memory() const { return std::nullopt; }
  // Device memory one candidate's shared stages may hold at once on `task`; 0: unknown.
  virtual std::uint64_t shared_memory_need(const task::Task& /*task*/) const { return 0; }
};

}  // namespace ptxbench::eval
