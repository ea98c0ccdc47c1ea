// The candidate ABI shown to every model: a small, complete .cu file that compiles as is (a CI
// test compiles this exact text with nvcc for both archs).
#pragma once
#include <string_view>

namespace ptxbench::prompt {

// An elementwise bf16 add exported through TVM-FFI with destination passing: run(a, b, out).
std::string_view abi_example();

}  // namespace ptxbench::prompt
