// Stage 2: library use is refused. The authority is what the built shared object links
// (DT_NEEDED) and imports (undefined dynamic symbols) and which headers the preprocessor really
// opened (the compile's own -MD rule: `#define H <cublas_v2.h>` / `#include H` is seen,
// and header-only libraries such as CUTLASS leave no import); a source pre-check of #include
// lines only gives a clearer message earlier.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/compile/elf_imports.hpp"

namespace ptxbench::compile {

// Why the source is refused ("includes <cublas_v2.h> (cuBLAS)"), or nullopt.
std::optional<std::string> check_source_includes(std::string_view source);

// The files the preprocessor opened for work_dir/candidate.cu, from the dependency rule the
// compile wrote (compile_candidate: -MD -MF candidate.d; the source itself is not listed). An
// error when the compile wrote none.
util::Expected<std::vector<std::string>> resolved_includes(const std::filesystem::path& work_dir);
// The paths of a Makefile dependency rule ("out.o : a.cu b.h", lines continued with a
// backslash), spaces inside paths escaped with a backslash.
std::vector<std::string> parse_dependency_rule(std::string_view rule);
// Why the resolved include paths are refused ("includes .../cublas_v2.h (cuBLAS)"), or nullopt.
std::optional<std::string> check_resolved_includes(const std::vector<std::string>& paths);

// Why the object is refused ("imports cublasCreate_v2 (cuBLAS)"; "links libcublas.so.13"), or
// nullopt. Libraries outside the allowlist (TVM-FFI, CUDA runtime and driver, the C and C++
// runtimes) and symbols of the denylist (vendor math libraries, dynamic loading, process
// spawning, loading GPU code at run time) are refused.
std::optional<std::string> check_imports(const ElfImports& imports);

}  // namespace ptxbench::compile
