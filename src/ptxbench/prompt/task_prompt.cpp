#include "ptxbench/prompt/task_prompt.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "ptxbench/prompt/harness_facts.hpp"
#include "ptxbench/task/task_render.hpp"

namespace ptxbench::prompt {
namespace {

std::string joined_names(const std::vector<task::TensorSpec>& tensors) {
  std::string out;
  for (const auto& tensor : tensors) {
    if (!out.empty()) out += ", ";
    out += tensor.name;
  }
  return out;
}

std::string axes_text(const task::Workload& workload) {
  std::string out;
  for (const auto& [axis, value] : workload.axes) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{}={}", axis, value);
  }
  return out;
}

// How outputs are compared, under the task's rule (docs/correctness.md).
std::string correctness_sentence(const task::Tolerance& tolerance) {
  if (tolerance.rule == task::CorrectnessRule::kMatchesLibrary) {
    return fmt::format(
        "An element fails when |out - ref| > {} and\n   |out - ref| / (|ref| + 1e-8) > {} (ref: "
        "the vendor library's output)",
        tolerance.atol, tolerance.rtol);
  }
  return fmt::format(
      "Your outputs and the vendor library's are both compared\n   with a high-precision "
      "reference: your error may be at most twice the library's (max,\n   mean and relative "
      "Frobenius norm), and you may be off by more than twice the library's\n   error + {} + {} "
      "* |ref| at no more than twice as many elements as the library",
      tolerance.atol, tolerance.rtol);
}

bool has_tensor(const task::Task& task, std::string_view name) {
  auto named = [name](const task::TensorSpec& tensor) { return tensor.name == name; };
  return std::any_of(task.inputs.begin(), task.inputs.end(), named) ||
         std::any_of(task.outputs.begin(), task.outputs.end(), named);
}

// How the inputs are drawn, and the exact LSE definition where a task has one.
std::string inputs_text(const task::Task& task) {
  std::set<task::Distribution> used;
  for (const auto& workload : task.workloads) used.insert(workload.distribution);
  std::vector<std::string> kinds;
  for (auto distribution : used) {
    kinds.push_back(fmt::format("`{}` workloads: every element {}", task::to_string(distribution),
                                describe_distribution(distribution)));
  }
  std::string text = fmt::format(
      "\n## Inputs\n\nEach trial draws new inputs, element by element and independently, then "
      "rounds them to the tensor's dtype: {}.\n",
      fmt::join(kinds, "; "));
  if (task.op_type == task::OpType::kMhaBwd) {
    text +=
        "O and LSE are not drawn: they are the reference forward pass's outputs for the drawn Q, "
        "K and V; dO is drawn.\n";
  }
  if (task.op_type == task::OpType::kMhaDecode) {
    text +=
        "KV_LEN is not drawn: sequence 0 has the full length S and every other sequence a length "
        "between 1 and S, new each trial, so lengths differ within the batch and are rarely a "
        "multiple of a tile. Keys and values at positions ≥ KV_LEN[b] are drawn like the rest and "
        "must be ignored.\n";
  }
  if (task.op_type == task::OpType::kMhaDecode) {
    text +=
        "LSE is float32 and in natural log of the *scaled* scores: LSE[b,h] = ln Σ_{j < KV_LEN[b]} "
        "exp(scale · Σ_d Q[b,h,d] · K[b,h/(H/HKV),j,d]), with the task's scale (1/√D).\n";
  } else if (has_tensor(task, "LSE")) {
    text +=
        "LSE is float32 and in natural log of the *scaled* scores: LSE[b,h,i] = ln Σ_j exp(scale · "
        "Σ_d Q[b,h,i,d] · K[b,h,j,d]), over the keys j the mask keeps, with the task's scale "
        "(1/√D).\n";
  }
  return text;
}

}  // namespace

std::string describe_family(std::string_view family) {
  static const std::map<std::string_view, std::string_view> kPtxOf{
      {"GMMA", "wgmma.mma_async (SASS HGMMA)"},
      {"QGMMA", "wgmma.mma_async with .e4m3/.e5m2 operands (SASS QGMMA)"},
      {"TMA", "cp.async.bulk.tensor / cp.async.bulk (SASS UTMALDG/UTMASTG/UBLKCP)"},
      {"SYNCS", "mbarrier (SASS SYNCS)"},
      {"WARPGROUP", "wgmma.fence / commit_group / wait_group (SASS WARPGROUP.*)"},
      {"SETMAXNREG", "setmaxnreg (SASS USETMAXREG)"},
      {"STSM", "stmatrix (SASS STSM)"},
      {"UTCMMA", "tcgen05.mma (SASS UTC*MMA)"},
      {"UTCQMMA", "tcgen05.mma kind::f8f6f4 (SASS UTCQMMA)"},
      {"UTCBAR", "tcgen05.commit (SASS UTCBAR)"},
      {"TMEM", "tcgen05.alloc / tcgen05.ld / tcgen05.st (SASS LDTM/STTM)"},
  };
  auto it = kPtxOf.find(family);
  if (it == kPtxOf.end()) return std::string(family);
  return fmt::format("{}: {}", family, it->second);
}

std::string build_task_prompt(const task::Task& task, arch::Arch arch) {
  const auto& target = arch::info(arch);
  std::string text = task::render_for_model(task, arch);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  text += "\n\n## What you must deliver\n\n";
  text += fmt::format("`void run({}, {})` for `{}`, as one ```cuda block.\n",
                      joined_names(task.inputs), joined_names(task.outputs), target.sm);

  auto requested = task.requested.find(arch);
  if (requested != task.requested.end() && !requested->second.empty()) {
    text += fmt::format("The requested instruction families ({}) must carry the real work.\n",
                        fmt::join(requested->second, ", "));
  }

  const auto& headline = task.headline();
  text += "\n## How it is judged\n\n";
  text += fmt::format(
      "1. It must compile for `{}` without library calls (see the rules above).\n"
      "2. The disassembled machine code must contain the requested instructions; on a GPU, a\n"
      "   run under instruction counters must show them executing and doing a substantial share\n"
      "   of the work (a token instruction does not count).\n"
      "3. Every workload is checked over several trials with fresh random inputs and outputs\n"
      "   poisoned with NaN beforehand. {}; NaN, Inf, unwritten outputs and modified inputs "
      "fail.\n"
      "4. The headline workload `{}` ({}) is timed with a cold L2 against `{}`;\n"
      "   speedup = baseline time / your time. Higher is better once the answer is correct.\n",
      target.sm, correctness_sentence(task.tolerance), headline.name, axes_text(headline),
      task.baseline);
  text += inputs_text(task);
  text += "\nYou will get the evaluation back and can answer again with an improved file.\n";
  return text;
}

}  // namespace ptxbench::prompt
