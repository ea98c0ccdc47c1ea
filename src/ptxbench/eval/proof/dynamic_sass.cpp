#include "ptxbench/eval/proof/dynamic_sass.hpp"

#include "ptxbench/eval/kernel_name.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_map>

namespace ptxbench::eval {
namespace {

constexpr std::string_view kExecutedMetric = "smsp__sass_inst_executed";

std::int64_t value_or_zero(const std::map<std::string, std::int64_t>& counts,
                           const std::string& key) {
  const auto it = counts.find(key);
  return it == counts.end() ? 0 : it->second;
}

// The families to report: the requested ones in their order, then every other family that is
// present or executed, alphabetically.
std::vector<std::string> reported_families(const sass::SassModule& module,
                                           const std::vector<KernelExecution>& kernels,
                                           const std::vector<std::string>& requested) {
  std::vector<std::string> families = requested;
  std::set<std::string> others;
  for (const auto& kernel : module.kernels) {
    for (const auto& [family, count] : kernel.family_counts) {
      if (count > 0) others.insert(family);
    }
  }
  for (const auto& kernel : kernels) {
    for (const auto& [family, count] : kernel.executions) {
      if (count > 0) others.insert(family);
    }
  }
  for (const auto& family : others) {
    if (std::find(families.begin(), families.end(), family) == families.end()) {
      families.push_back(family);
    }
  }
  return families;
}

std::string percent(double share) {
  return fmt::format("{:.4g}%", 100.0 * share);
}

}  // namespace

int warps_per_tensor_core_op(std::string_view family) {
  // Hopper's wgmma is a warpgroup instruction; Blackwell's tcgen05.mma is issued by one thread.
  return family == "GMMA" || family == "QGMMA" ? 4 : 1;
}

std::string_view to_string(ExecutionEvidence evidence) {
  switch (evidence) {
    case ExecutionEvidence::kMeasured:
      return "measured";
    case ExecutionEvidence::kNotLaunched:
      return "not launched";
    case ExecutionEvidence::kInconclusive:
      return "inconclusive";
  }
  return "?";
}

namespace {

// The column of smsp__sass_inst_executed when the probe's records can be joined to `kernel`;
// otherwise nullopt, and `out` says why (not launched, or a note of what the probe missed).
std::optional<std::size_t> joinable_metric(const ProbeReport& report,
                                           const sass::SassKernel& kernel, KernelExecution& out) {
  if (!report.error.empty()) {
    out.note = report.error;
    return std::nullopt;
  }
  const auto& launched = report.launched_functions;
  if (std::find(launched.begin(), launched.end(), kernel.name) == launched.end()) {
    if (report.graph_launches > 0) {
      out.note = "the call launched CUDA graphs, whose kernels the probe cannot see by name";
    } else {
      out.evidence = ExecutionEvidence::kNotLaunched;
    }
    return std::nullopt;
  }
  if (kernel.name != report.kernel) {
    out.note = fmt::format(
        "launched after {}: this CUPTI reports only the first kernel function of a process",
        report.kernel);
    return std::nullopt;
  }
  if (!report.candidate_crc) {
    out.note = "the probe could not identify the candidate's module";
    return std::nullopt;
  }
  const auto metric = std::find(report.metrics.begin(), report.metrics.end(), kExecutedMetric);
  if (metric == report.metrics.end()) {
    out.note = "the probe did not collect smsp__sass_inst_executed";
    return std::nullopt;
  }
  return static_cast<std::size_t>(metric - report.metrics.begin());
}

struct AttributedCounts {
  std::int64_t executions = 0;  // of the candidate's module and this kernel
  bool unknown_shape = false;   // a tensor-core instruction whose FLOPs cannot be read
};

// Adds each record of the kernel to the family of the instruction at its pc (executions and
// tensor-core FLOPs); counts the records of other modules or functions and the unknown pcs.
AttributedCounts attribute_records(const ProbeReport& report, const sass::SassKernel& kernel,
                                   arch::Arch arch, std::size_t metric_index,
                                   KernelExecution& out) {
  std::unordered_map<std::uint32_t, const sass::SassInstruction*> by_offset;
  for (const auto& instruction : kernel.instructions) by_offset[instruction.offset] = &instruction;
  AttributedCounts counts;
  for (const ProbeRecord& record : report.records) {
    if (record.cubin_crc != *report.candidate_crc || record.function != kernel.name) {
      ++out.foreign_records;
      continue;
    }
    const std::int64_t count = std::max<std::int64_t>(0, record.counts.at(metric_index));
    counts.executions += count;
    const auto found = by_offset.find(record.pc_offset);
    if (found == by_offset.end()) {
      ++out.unknown_pcs;
      continue;
    }
    const sass::SassInstruction& instruction = *found->second;
    const std::string family =
        instruction.family.empty() ? sass::family_of(instruction.opcode, arch) : instruction.family;
    if (family.empty()) continue;
    out.executions[family] += count;
    if (sass::is_tensor_core_family(family)) {
      if (const auto flops = sass::flops_per_execution(instruction.opcode)) {
        out.tensor_core_flops[family] +=
            static_cast<double>(count) * *flops / warps_per_tensor_core_op(family);
      } else {
        counts.unknown_shape = true;
      }
    }
  }
  return counts;
}

}  // namespace

KernelExecution join_probe(const ProbeReport& report, const sass::SassKernel& kernel,
                           arch::Arch arch) {
  KernelExecution out;
  out.kernel = kernel.name;
  const auto metric_index = joinable_metric(report, kernel, out);
  if (!metric_index) return out;
  const AttributedCounts counts = attribute_records(report, kernel, arch, *metric_index, out);
  if (out.unknown_pcs > 0) {
    // A probe of the same cubin only reports pcs of its disassembly.
    out.note = fmt::format("{} counted pcs are not in the disassembly of {}", out.unknown_pcs,
                           kernel.name);
    out.executions.clear();
    out.tensor_core_flops.clear();
    return out;
  }
  if (counts.executions == 0) {
    out.note = fmt::format(
        "launched {} time(s) but no instruction count was attributed to the candidate's module "
        "({} records of other modules or functions)",
        report.launches, out.foreign_records);
    out.executions.clear();
    return out;
  }
  out.evidence = ExecutionEvidence::kMeasured;
  if (counts.unknown_shape)
    out.note = "tensor-core instructions without a readable shape: FLOPs unknown";
  return out;
}

bool ExecutionProof::all_requested_substantial() const {
  return std::all_of(families.begin(), families.end(), [](const FamilyEvidence& family) {
    return !family.requested || family.substantial;
  });
}

namespace {

// What the kernels' counts say of one family: its executions over the kernels that measured
// it, the tensor-core FLOPs those carried, and whether a kernel holding it went unmeasured.
struct FamilyTally {
  std::int64_t present = 0;  // static count over the module's kernels
  std::int64_t executed = 0;
  double flops = 0;
  bool flops_known = true;
  bool unmeasured = false;        // a kernel holding the family has no conclusive count
  std::set<std::string> methods;  // what measured its executions
};

FamilyTally tally_family(const sass::SassModule& module,
                         const std::map<std::string, const KernelExecution*>& by_name,
                         const std::string& family) {
  FamilyTally tally;
  for (const auto& kernel : module.kernels) {
    const std::int64_t present = value_or_zero(kernel.family_counts, family);
    tally.present += present;
    const auto it = by_name.find(kernel.name);
    const KernelExecution* execution = it == by_name.end() ? nullptr : it->second;
    if (execution == nullptr || !execution->measures(family)) {
      tally.unmeasured = tally.unmeasured || present > 0;
      continue;
    }
    if (value_or_zero(execution->executions, family) > 0) tally.methods.insert(execution->method);
    tally.executed += value_or_zero(execution->executions, family);
    if (const auto f = execution->tensor_core_flops.find(family);
        f != execution->tensor_core_flops.end()) {
      tally.flops += f->second;
    } else if (value_or_zero(execution->executions, family) > 0) {
      tally.flops_known = false;
    }
  }
  return tally;
}

// Whether a measured family carried the work: a tensor-core family its share of the task's
// FLOPs, TMA enough loads for the tensor-core work, any other family by executing at all.
bool substantial(const FamilyEvidence& evidence, std::int64_t executed,
                 std::int64_t tensor_core_executions) {
  if (!evidence.executed_count || *evidence.executed_count == 0) return false;
  if (sass::is_tensor_core_family(evidence.family)) {
    // Without a readable shape (Blackwell's UTC*MMA) only execution can be shown.
    return evidence.flop_share ? *evidence.flop_share >= kTensorCoreShareThreshold : true;
  }
  if (evidence.family == "TMA") {
    return tensor_core_executions == 0 || static_cast<double>(executed) * kMaxTensorCorePerTma >=
                                              static_cast<double>(tensor_core_executions);
  }
  return true;
}

// Why a requested family falls short (its evidence not substantial).
std::string shortfall(const FamilyEvidence& evidence, std::int64_t executed,
                      std::int64_t tensor_core_executions) {
  const auto& family = evidence.family;
  if (evidence.static_count == 0 && executed == 0) return family + ": not present in the binary";
  if (!evidence.executed_count)
    return family + ": present (" + std::to_string(evidence.static_count) +
           " instructions), execution could not be measured";
  if (executed == 0)
    return family + ": present (" + std::to_string(evidence.static_count) +
           " instructions), not executed";
  if (sass::is_tensor_core_family(family))
    return fmt::format("{}: executed {} times but carried {} of the task's FLOPs (needs {})",
                       family, executed, percent(evidence.flop_share.value_or(0)),
                       percent(kTensorCoreShareThreshold));
  return fmt::format(
      "{}: executed {} times beside {} tensor-core warp-executions (needs one per {:g})", family,
      executed, tensor_core_executions, kMaxTensorCorePerTma);
}

// What was proven, per kernel: "executed: gemm: GMMA x4096 (100.0% of the task's FLOPs)";
// empty when no requested family executed.
std::string proven_line(const std::vector<KernelExecution>& kernels,
                        const std::vector<std::string>& requested, double task_flops) {
  std::vector<std::string> proven;
  for (const auto& kernel : kernels) {
    std::vector<std::string> parts;
    for (const std::string& family : requested) {
      const std::int64_t count = value_or_zero(kernel.executions, family);
      if (count <= 0) continue;
      std::string part = fmt::format("{} x{}", family, count);
      if (const auto f = kernel.tensor_core_flops.find(family);
          f != kernel.tensor_core_flops.end() && task_flops > 0)
        part += fmt::format(" ({} of the task's FLOPs)", percent(f->second / task_flops));
      parts.push_back(std::move(part));
    }
    if (!parts.empty())
      proven.push_back(
          fmt::format("{}: {}", KernelName(kernel.kernel).function(), fmt::join(parts, ", ")));
  }
  return proven.empty() ? "" : fmt::format("executed: {}", fmt::join(proven, "; "));
}

}  // namespace

ExecutionProof judge_execution(const sass::SassModule& module,
                               const std::vector<KernelExecution>& kernels,
                               const std::vector<std::string>& requested, double task_flops) {
  ExecutionProof proof;
  proof.kernels = kernels;
  std::map<std::string, const KernelExecution*> by_name;
  for (const auto& kernel : kernels) by_name[kernel.kernel] = &kernel;

  // Tensor-core warp-executions over all tensor-core families: the scale TMA is judged against.
  std::int64_t tensor_core_executions = 0;
  for (const auto& kernel : kernels) {
    for (const auto& [family, count] : kernel.executions) {
      if (sass::is_tensor_core_family(family)) tensor_core_executions += count;
    }
  }

  std::vector<std::string> messages;
  std::vector<std::string> method_lines;
  for (const std::string& family : reported_families(module, kernels, requested)) {
    FamilyEvidence evidence;
    evidence.family = family;
    evidence.requested = std::find(requested.begin(), requested.end(), family) != requested.end();
    const FamilyTally tally = tally_family(module, by_name, family);
    const std::int64_t executed = tally.executed;
    evidence.static_count = tally.present;
    // A count seen anywhere proves execution even when another kernel is unmeasured.
    if (executed > 0 || !tally.unmeasured) evidence.executed_count = executed;
    if (sass::is_tensor_core_family(family) && executed > 0 && tally.flops_known &&
        task_flops > 0) {
      evidence.flop_share = tally.flops / task_flops;
    }
    evidence.substantial = substantial(evidence, executed, tensor_core_executions);

    if (evidence.requested && !evidence.substantial && evidence.executed_count) {
      proof.requested_measured_short = true;
    }
    if (evidence.requested && !tally.methods.empty() && tally.methods.count("probe") == 0) {
      method_lines.push_back(family + ": executions measured by ncu (the probe was inconclusive)");
    }
    if (evidence.requested && !evidence.substantial) {
      if (evidence.static_count != 0 && !evidence.executed_count) proof.conclusive = false;
      messages.push_back(shortfall(evidence, executed, tensor_core_executions));
    }
    proof.families.push_back(std::move(evidence));
  }
  for (const auto& kernel : kernels) {
    if (kernel.evidence == ExecutionEvidence::kInconclusive && !kernel.note.empty()) {
      messages.push_back(kernel.kernel + ": " + kernel.note);
    }
  }
  messages.insert(messages.end(), method_lines.begin(), method_lines.end());
  if (auto line = proven_line(kernels, requested, task_flops); !line.empty())
    messages.push_back(std::move(line));
  proof.task_flops = task_flops;
  for (const auto& line : messages) {
    if (!proof.message.empty()) proof.message += '\n';
    proof.message += line;
  }
  return proof;
}

void apply_execution_proof(const ExecutionProof& proof, Evaluation& evaluation) {
  for (const KernelExecution& execution : proof.kernels) {
    for (KernelReport& kernel : evaluation.kernels) {
      if (kernel.name == execution.kernel &&
          execution.evidence != ExecutionEvidence::kInconclusive) {
        kernel.executed_families = execution.executions;
        kernel.executed_by = execution.method;
        kernel.executed_flop_share.clear();
        if (proof.task_flops > 0) {
          for (const auto& [family, flops] : execution.tensor_core_flops)
            kernel.executed_flop_share[family] = flops / proof.task_flops;
        }
      }
    }
  }
  evaluation.families = proof.families;
}

std::vector<std::string> kernels_to_probe(const sass::SassModule& module) {
  std::vector<std::string> names;
  for (const auto& kernel : module.kernels) {
    const bool tracked = std::any_of(kernel.family_counts.begin(), kernel.family_counts.end(),
                                     [](const auto& entry) { return entry.second > 0; });
    if (tracked) names.push_back(kernel.name);
  }
  return names;
}

std::vector<KernelExecution> executions_from_probe(const ProbeReport& report,
                                                   const sass::SassModule& module,
                                                   arch::Arch arch) {
  std::vector<KernelExecution> kernels;
  const std::vector<std::string> names = kernels_to_probe(module);
  for (const sass::SassKernel& kernel : module.kernels) {
    if (std::find(names.begin(), names.end(), kernel.name) == names.end()) continue;
    kernels.push_back(join_probe(report, kernel, arch));
  }
  return kernels;
}

}  // namespace ptxbench::eval
