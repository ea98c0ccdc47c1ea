// What the candidate's exported run() takes, read from the compiled object without running it.
// The source names the function that TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, f) exports; the object's
// exported C++ symbol for f carries its parameter types in its mangled name (the Itanium ABI
// encodes them), so the types come from what was compiled, not from a parse of declarations.
// When that cannot be read (f is a lambda, static or inlined away, or overloaded), the
// signature is "unknown" and the GPU stages decide as before.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/task/task.hpp"

namespace ptxbench::eval {

struct RunSignature {
  bool exported = false;  // the object defines __tvm_ffi_run, the symbol the worker calls
  std::string function;   // f of TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, f); empty when not found
  std::optional<std::vector<std::string>> parameters;  // demangled types; nullopt: unknown
};

RunSignature read_run_signature(std::string_view source,
                                const std::vector<std::string>& defined_functions);

// The exported function named by the source's export macro, or "" (none, several, or not an
// identifier). Comments are ignored.
std::string exported_function_name(std::string_view source);

// The parameter types of a demangled function "ns::f(int, tvm::ffi::TensorView)"; nullopt when
// the text has no parameter list.
std::optional<std::vector<std::string>> demangled_parameters(std::string_view demangled);

// Why the worker's call run(inputs..., outputs...) cannot succeed, in one line; nullopt when it
// can, or when the signature is unknown.
std::optional<std::string> signature_mismatch(const task::Task& task,
                                              const RunSignature& signature);

}  // namespace ptxbench::eval
