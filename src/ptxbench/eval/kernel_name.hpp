// One kernel's name as every stage sees it: the cubin and CUPTI give it mangled, the sanitizer
// prints it demangled (with or without parameters), messages want it readable. Every comparison
// of kernel names goes through this type, so that all stages agree on what "the same kernel" is,
// including kernels in an anonymous namespace ("(anonymous namespace)::k").
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench::eval {

class KernelName {
 public:
  // A mangled name ("_Z4gemmPfi") or an already demangled one ("void gemm(float*, int)").
  explicit KernelName(std::string name);

  const std::string& given() const { return given_; }
  // The whole demangled text; the given text when it does not demangle.
  const std::string& demangled() const { return demangled_; }
  // "ns::gemm<128>": no return type, no parameter list (parentheses matched from the end, so
  // "(anonymous namespace)::" stays). What stays the same however a tool spells the parameters.
  const std::string& function() const { return function_; }
  // "gemm": the last identifier, without namespaces and template arguments.
  const std::string& identifier() const { return identifier_; }

  // The same kernel: equal given names, or equal function() when both are non-empty.
  bool same_kernel(const KernelName& other) const;

 private:
  std::string given_;
  std::string demangled_;
  std::string function_;
  std::string identifier_;
};

// Whether `name` is one of `kernels` (same_kernel), or, when `name` is only an identifier (as
// a tool prints "at gemm+0x1c0"), has the identifier of one of them.
bool names_one_of(const KernelName& name, const std::vector<KernelName>& kernels);

std::vector<KernelName> kernel_names(const std::vector<std::string>& names);

}  // namespace ptxbench::eval
