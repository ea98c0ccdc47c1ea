#include "ptxbench/task/task_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

namespace ptxbench::task {
namespace {

// The PTX a model writes to obtain each tracked SASS family.
constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kFamilyPtx{{
    {"GMMA", "wgmma.mma_async (warpgroup MMA from shared-memory descriptors)"},
    {"QGMMA", "wgmma.mma_async with FP8 operands (.e4m3/.e5m2: an FP8 MMA, not bf16 after a cast)"},
    {"TMA",
     "cp.async.bulk.tensor / cp.async.bulk (the copy engine: tensor copies with a CUtensorMap, "
     "or plain bulk copies of contiguous bytes)"},
    {"SYNCS", "mbarrier (init, arrive.expect_tx, try_wait.parity)"},
    {"WARPGROUP", "wgmma.fence / commit_group / wait_group"},
    {"SETMAXNREG", "setmaxnreg (register reallocation between warpgroups)"},
    {"STSM", "stmatrix"},
    {"UTCMMA", "tcgen05.mma (MMA with the accumulator in tensor memory)"},
    {"UTCQMMA", "tcgen05.mma kind::f8f6f4 (FP8 operands, accumulator in tensor memory)"},
    {"UTCBAR", "tcgen05.commit (MMA completion signalled on an mbarrier)"},
    {"TMEM", "tcgen05.alloc / tcgen05.ld / tcgen05.st (tensor memory)"},
}};

std::string_view family_ptx(std::string_view family) {
  for (const auto& [name, ptx] : kFamilyPtx) {
    if (name == family) return ptx;
  }
  return "";
}

std::string shape_text(const TensorSpec& tensor) {
  return fmt::format("[{}]", fmt::join(tensor.shape, ", "));
}

std::string workload_text(const Task& task, const Workload& workload) {
  std::vector<std::string> values;
  for (const auto& axis : task.axes) {
    if (!axis.is_const)
      values.push_back(fmt::format("{}={}", axis.name, workload.axes.at(axis.name)));
  }
  return fmt::format("{}", fmt::join(values, ", "));
}

void render_tensors(std::string& out, const std::vector<TensorSpec>& tensors) {
  std::size_t width = 0;
  for (const auto& t : tensors) width = std::max(width, t.name.size());
  for (const auto& t : tensors) {
    out += fmt::format("  {:<{}}  {:<9} {}", t.name, width, to_string(t.dtype), shape_text(t));
    if (!t.description.empty()) out += "  " + t.description;
    out += "\n";
  }
}

}  // namespace

std::string render_for_model(const Task& task, std::optional<arch::Arch> arch) {
  std::string out;
  out += fmt::format("Task: {} ({})\n\n{}\n\n", task.name, task.op_type, task.description);

  out += "Axes:\n";
  for (const auto& axis : task.axes) {
    std::string value = axis.is_const ? fmt::format("= {}", *axis.value) : "varies per workload";
    if (axis.multiple_of) value = fmt::format("a multiple of {}", *axis.multiple_of);
    out += fmt::format("  {:<3} {:<20} {}\n", axis.name, value, axis.description);
  }
  out += "\nInputs, in argument order:\n";
  render_tensors(out, task.inputs);
  out += "Outputs, preallocated by the caller, in argument order after the inputs:\n";
  render_tensors(out, task.outputs);
  if (!task.parameters.empty()) {
    std::vector<std::string> parameters;
    for (const auto& [name, value] : task.parameters)
      parameters.push_back(fmt::format("{} = {:g}", name, value));
    out += fmt::format("Parameters: {}\n", fmt::join(parameters, ", "));
  }

  std::vector<std::string> arguments;
  for (const auto& t : task.inputs) arguments.push_back("tvm::ffi::TensorView " + t.name);
  for (const auto& t : task.outputs) arguments.push_back("tvm::ffi::TensorView " + t.name);
  out += fmt::format(
      "\nEntry point (exported with TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run)):\n"
      "  void run({});\n",
      fmt::join(arguments, ", "));

  out += fmt::format(
      "\nCorrectness ({}, docs/correctness.md): an output element fails the library match only "
      "if |out - ref| > {:g} and |out - ref| / (|ref| + 1e-8) > {:g}; {:g}% of the elements must "
      "pass; NaN or Inf fails.\n",
      to_string(task.tolerance.rule), task.tolerance.atol, task.tolerance.rtol,
      task.tolerance.required_matched_ratio * 100);

  std::vector<std::string> sizes;
  for (const auto& w : task.workloads) {
    std::string size = workload_text(task, w);
    if (w.distribution != Distribution::kNormal)
      size += fmt::format(" ({} inputs)", to_string(w.distribution));
    if (w.headline) size += " (headline, timed against the baseline)";
    sizes.push_back(size);
  }
  out += fmt::format("Workloads: {}\n", fmt::join(sizes, "; "));
  // The unseen workloads themselves are never shown (task/unseen_workloads.hpp).
  if (!task.unseen.bounds.empty())
    out +=
        "Correctness is also checked on sizes not listed here: handle any value of the "
        "varying axes" +
        std::string(std::any_of(task.axes.begin(), task.axes.end(),
                                [](const Axis& a) { return a.multiple_of.has_value(); })
                        ? " that meets its stated multiple"
                        : ", not only multiples of a tile") +
        ".\n";
  out += fmt::format("Baseline: {}\n", task.baseline);

  if (arch) {
    const auto& info = arch::info(*arch);
    out += fmt::format("\nTarget: {} ({}, {})\n", info.name, info.sm, info.gpus);
    auto requested = task.requested.find(*arch);
    if (requested == task.requested.end() || requested->second.empty()) {
      out += "Requested instruction families: none for this arch\n";
    } else {
      out += "Requested instruction families (must execute, proven from the SASS that ran):\n";
      for (const auto& family : requested->second) {
        auto ptx = family_ptx(family);
        out += ptx.empty() ? fmt::format("  {}\n", family) : fmt::format("  {}: {}\n", family, ptx);
      }
    }
  } else {
    for (const auto& [a, families] : task.requested) {
      out += fmt::format("Requested on {}: {}\n", arch::to_string(a), fmt::join(families, ", "));
    }
  }
  return out;
}

}  // namespace ptxbench::task
