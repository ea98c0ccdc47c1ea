#include "ptxbench/prompt/harness_facts.hpp"

#include <fmt/format.h>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/config.hpp"

namespace ptxbench::prompt {
namespace {

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

std::string toolkit_text() {
  const std::string_view version = config::kCudaToolkitVersion;
  if (version.empty()) return "the CUDA toolkit's nvcc";
  return fmt::format("CUDA toolkit {} (nvcc {})", version, version);
}

}  // namespace

std::string compile_command_text(arch::Arch arch) {
  const auto argv =
      compile::nvcc_command("nvcc", arch, compile::kSourceFileName, compile::kObjectFileName);
  std::string text = fmt::format("{}", fmt::join(argv, " "));
  // The folders as nvcc_command found them (relocated), so the prompt reads the same wherever
  // the built tree lies.
  replace_all(text, config::relocated(config::kTvmFfiIncludeDir).string(), "<tvm-ffi>/include");
  replace_all(text, config::relocated(config::kTvmFfiLibraryDir).string(), "<tvm-ffi>/lib");
  return text;
}

std::string toolchain_section(arch::Arch arch) {
  return fmt::format(
      R"(## Toolchain, compile command and tensors

- Toolkit: {}. Your file is saved as `{}` and built with exactly
  `{}`
  so it links the shared CUDA runtime, the CUDA driver API (`-lcuda`: `cuTensorMapEncodeTiled` and
  friends are callable directly) and TVM-FFI (`-ltvm_ffi`); nothing else is linked.
- Tensors: every `tvm::ffi::TensorView` is a compact row-major (C-contiguous) tensor in its own
  `cudaMalloc` allocation (256-byte aligned, `byte_offset` 0). Use `x.data_ptr()`, `x.ndim()`,
  `x.size(i)` or `x.shape()[i]` (int64), `x.numel()`, `x.dtype()` (a `DLDataType`: `code` and
  `bits`) and `x.device()`. Strides are not passed: `x.strides()` and `x.stride(i)` fail; the
  stride of dimension i is the product of the sizes after it.
- Workspace: `run` may allocate device memory (`cudaMallocAsync` / `cudaFreeAsync` on the
  caller's stream keep it stream-ordered); the GPU's own memory is the limit. Whatever `run` does
  is part of its time: each timed call is bracketed by CUDA events on the stream, and a call that
  waits for the GPU (`cudaMalloc`, `cudaFree`, a synchronisation) is timed with that wait.
  Untimed warm-up calls come first, so a workspace allocated once and reused (keyed by size and
  device, never by a tensor's address alone) costs its allocation only there.
)",
      toolkit_text(), compile::kSourceFileName, compile_command_text(arch));
}

std::string describe_distribution(task::Distribution distribution) {
  switch (distribution) {
    case task::Distribution::kNormal:
      return "N(0, 1)";
    case task::Distribution::kUniform:
      return "uniform on (-1, 1]";
    case task::Distribution::kSpiky:
      return "N(0, 1), and 1 element in 1000 gets an extra N(0, 100²) spike";
    case task::Distribution::kLarge:
      return "1024·N(0, 1): large magnitudes";
    case task::Distribution::kEqualScores:
      return "N(0, 1), with every row along the second-to-last axis equal (attention: every "
             "score of a row equal)";
    case task::Distribution::kNearTies:
      return "multiples of 1/8 in [-2, 2]: exact products and sums, outputs on rounding ties";
  }
  return std::string(task::to_string(distribution));
}

}  // namespace ptxbench::prompt
