// What the harness does to a candidate, stated for the model from the code that does it: the
// toolkit and the exact nvcc command (compile/compiler.cpp), the TensorView calls that work on
// the tensors the worker passes (eval/worker/gpu/device_tensors.cpp), workspace and what is timed
// (eval/timing/gpu/timing_mode.cpp), and how inputs are drawn
// (eval/correctness/gpu/tensor_kernels.cu).
#pragma once
#include <string>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::prompt {

// The nvcc command line for a candidate of `arch`, with the TVM-FFI paths of this machine
// written as <tvm-ffi>/include and <tvm-ffi>/lib.
std::string compile_command_text(arch::Arch arch);

// "## Toolchain, compile command and tensors" for the system prompt, at every context level.
std::string toolchain_section(arch::Arch arch);

// How the inputs of a workload with this distribution are drawn, e.g. "N(0, 1)".
std::string describe_distribution(task::Distribution distribution);

}  // namespace ptxbench::prompt
