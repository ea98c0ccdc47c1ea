#include "ptxbench/prompt/system_prompt.hpp"

#include <fmt/format.h>

#include "ptxbench/prompt/abi_example.hpp"
#include "ptxbench/prompt/harness_facts.hpp"

namespace ptxbench::prompt {
namespace {

constexpr std::string_view kRole =
    "You are an expert GPU kernel engineer. You write CUDA C++ with inline PTX that uses the\n"
    "architecture-specific instructions of the target GPU, and you make the kernel correct first\n"
    "and then fast.\n";

constexpr std::string_view kResponseFormat = R"(## How to answer

Reply with exactly one fenced code block marked `cuda` holding the whole candidate: one
self-contained .cu file with your kernels and the host function `run`. You may explain before the
block; only the last fenced code block of the reply is taken, so put no other block after it.

Rules the harness enforces:
- No libraries for the computation: cuBLAS/cuBLASLt, cuDNN, CUTLASS/CuTe, PyTorch, and loading code
  at run time (dlopen) are refused. The CUDA runtime and driver APIs, the CUDA toolkit headers
  (cuda.h, cudaTypedefs.h, cuda_bf16.h, cuda_fp8.h, ...) and inline PTX (`asm volatile`) are fine.
- `run` takes the task's inputs, then its preallocated outputs, as `tvm::ffi::TensorView`, in the
  order the task lists them (destination passing). It writes every element of every output, must
  not modify the inputs, and returns nothing. The tensors are on the GPU, laid out as above.
- Launch all work on the caller's stream, `TVMFFIEnvGetStream(device.device_type,
  device.device_id)`; do not synchronise the device or create other streams.
- Every call may pass buffers at new addresses: build TMA tensor maps and other descriptors per
  call (or key any cache by address as well as shape).
- Export `run` with `TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);`.
)";

}  // namespace

std::string build_system_prompt(arch::Arch arch, ContextLevel level, std::string_view context) {
  const auto& target = arch::info(arch);
  std::string text(kRole);
  text += fmt::format(
      "\n## Target\n\nNVIDIA {} ({}, `{}`). Your file is compiled once by nvcc with\n"
      "`{}` (the architecture-specific target: its instructions are allowed,\n"
      "other GPUs are not a concern) into a shared library; that binary is the one inspected and\n"
      "run.\n",
      target.gpus, target.name, target.sm, arch::gencode_flag(arch));
  text += "\n";
  text += toolchain_section(arch);
  text += "\n";
  text += kResponseFormat;
  text += fmt::format(
      "\n## A complete example of the ABI\n\nAn elementwise add, run(a, b, out); your kernels "
      "replace it:\n\n```cuda\n{}```\n",
      abi_example());
  if (level != ContextLevel::kNone && !context.empty()) {
    text += fmt::format("\n## Reference for {} (context level `{}`)\n\n{}\n", target.name,
                        to_string(level), context);
  }
  return text;
}

}  // namespace ptxbench::prompt
