// Stage 7 on the CPU side: which instruction families the candidate's kernels really executed,
// from the per-pc counts of the probe (ptxbench-worker probe, eval/proof/gpu/probe_mode.hpp) joined
// by (kernel name, pc offset) with the disassembly of the same cubin. The probe observes the first
// kernel run() launches; a kernel run() never launched executed nothing; any other launched
// kernel is inconclusive (this CUPTI reports one kernel function per process).
//
// Rules (documented in docs/executed-instructions.md):
//  * only records whose cubin CRC is the candidate's own count: a library kernel (cuBLAS's
//    nvjet_* has HGMMA) never lends its instructions to the candidate;
//  * a kernel the probe saw launched but for which CUPTI reported no count at all is
//    inconclusive, never "not executed" (the counters read zero when something else profiles);
//  * a tensor-core family is substantial when its executed FLOPs are at least
//    kTensorCoreShareThreshold of the task's FLOPs for the workload;
//  * TMA is substantial when executed and, beside executed tensor-core work, at least one TMA
//    instruction runs per kMaxTensorCorePerTma tensor-core warp-executions; other families
//    when executed at all.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/proof/probe_report.hpp"
#include "ptxbench/sass/sass.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {

// Half of the task's FLOPs must go through the tensor-core family. An honest tensor-core
// kernel reaches ~1.0 (more with padded tiles or masked attention blocks), one wgmma beside an
// FFMA main loop ~1e-6, so the threshold only has to sit between them.
inline constexpr double kTensorCoreShareThreshold = 0.5;
// Pipelines issue one TMA load per operand tile per k-block: 1 per 8-32 GMMA warp-executions
// (a 64x64 tile with a 64-wide k-block: 1 per 8; two consumer warpgroups of 64x256: 1 per 16).
// A token TMA (one per CTA at K = 5120) gives 1 per ~2560.
inline constexpr double kMaxTensorCorePerTma = 512;
// Warps that count one execution of a tensor-core instruction: smsp__sass_inst_executed is
// per warp and every warp of the warpgroup issues the HGMMA (measured on an H200: 64
// warpgroup MMAs read 256).
int warps_per_tensor_core_op(std::string_view family);

// ---- The join and the rules ----

enum class ExecutionEvidence {
  kMeasured,      // counts attributed to the candidate's module
  kNotLaunched,   // the call never launched the kernel
  kInconclusive,  // launched, but nothing attributable was counted (or the probe failed)
};
std::string_view to_string(ExecutionEvidence evidence);

struct KernelExecution {
  std::string kernel;
  ExecutionEvidence evidence = ExecutionEvidence::kInconclusive;
  std::string note;                                 // why inconclusive, what was ignored
  std::map<std::string, std::int64_t> executions;   // family -> warp-level executions
  std::map<std::string, double> tensor_core_flops;  // family -> FLOPs executed
  std::int64_t unknown_pcs = 0;      // attributed records whose pc is not in the disassembly
  std::int64_t foreign_records = 0;  // records of other modules or functions, ignored
  std::string method = "probe";      // what measured it: "probe" (CUPTI) or "ncu"
  // The families the method can count; nullopt: all of them. A family outside the set stays
  // unmeasured for this kernel (ncu without its per-opcode counts measures GMMA and TMA only),
  // never "not executed".
  std::optional<std::set<std::string>> measured_families;
  bool measures(const std::string& family) const {
    return evidence != ExecutionEvidence::kInconclusive &&
           (!measured_families || measured_families->count(family) > 0);
  }
};

// One probe's records against the disassembly of `kernel`: measured when it is the observed
// kernel (report.kernel), not launched when run() never launched it, inconclusive otherwise.
KernelExecution join_probe(const ProbeReport& report, const sass::SassKernel& kernel,
                           arch::Arch arch);

struct ExecutionProof {
  std::vector<KernelExecution> kernels;
  std::vector<FamilyEvidence> families;  // requested families first, then other tracked ones
  bool conclusive = true;                // every requested family has a measured count
  // Some requested family has a measured count and fell short: the proof says "not executed"
  // rather than "could not be proven".
  bool requested_measured_short = false;
  // One line per requested family that fell short, then what was proven: per kernel, each
  // requested family it executed, how many times, and its share of the task's FLOPs.
  std::string message;
  double task_flops = 0;  // of the probed workload: the FLOP shares' denominator
  // Every requested family was executed substantially.
  bool all_requested_substantial() const;
};

// Applies the rules: static counts from `module`, executed counts from `kernels`, FLOP shares
// against `task_flops` (Task::flops of the probed workload).
ExecutionProof judge_execution(const sass::SassModule& module,
                               const std::vector<KernelExecution>& kernels,
                               const std::vector<std::string>& requested, double task_flops);

// Writes executed counts into the evaluation's kernels (matched by name) and replaces its
// family evidence with `proof.families`.
void apply_execution_proof(const ExecutionProof& proof, Evaluation& evaluation);

// The kernels whose execution matters: those of the cubin holding any tracked family (a kernel
// without one cannot add an executed count to any family).
std::vector<std::string> kernels_to_probe(const sass::SassModule& module);

// What one probe report says about each kernel worth probing: the observed one joined with its
// disassembly, the others not launched or inconclusive.
std::vector<KernelExecution> executions_from_probe(const ProbeReport& report,
                                                   const sass::SassModule& module, arch::Arch arch);

}  // namespace ptxbench::eval
