// What a shared object needs from the dynamic linker: its DT_NEEDED libraries and the dynamic
// symbols it leaves undefined. Read from the ELF file itself (<elf.h>), no external tool.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::compile {

struct ElfImports {
  std::vector<std::string> needed;             // "libcudart.so.13", in file order
  std::vector<std::string> undefined_symbols;  // global or weak, e.g. "cublasCreate_v2"
  // Functions the object defines and exports (global or weak), mangled: "__tvm_ffi_run",
  // "_Z3runN3tvm3ffi10TensorViewES2_S2_".
  std::vector<std::string> defined_functions;
};

// A 64-bit little-endian ELF image; every offset is bounds-checked (the object was built from
// untrusted source).
util::Expected<ElfImports> parse_elf_imports(std::string_view image);
util::Expected<ElfImports> read_elf_imports(const std::filesystem::path& shared_object);

}  // namespace ptxbench::compile
