// Stage 2: library use is refused. The authority is what the built shared object links
// (DT_NEEDED) and imports (undefined dynamic symbols); a source pre-check of #include lines only
// gives a clearer message earlier (and catches header-only libraries such as CUTLASS).
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "ptxbench/compile/elf_imports.hpp"

namespace ptxbench::compile {

// Why the source is refused ("includes <cublas_v2.h> (cuBLAS)"), or nullopt.
std::optional<std::string> check_source_includes(std::string_view source);

// Why the object is refused ("imports cublasCreate_v2 (cuBLAS)"; "links libcublas.so.13"), or
// nullopt. Libraries outside the allowlist (TVM-FFI, CUDA runtime and driver, the C and C++
// runtimes) and symbols of the denylist (vendor math libraries, dynamic loading, process
// spawning, loading GPU code at run time) are refused.
std::optional<std::string> check_imports(const ElfImports& imports);

}  // namespace ptxbench::compile
