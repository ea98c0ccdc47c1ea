#include "ptxbench/compile/lint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <regex>
#include <utility>
#include <vector>

namespace ptxbench::compile {
namespace {

// DT_NEEDED entries a candidate may have: what the fixed nvcc command itself links.
constexpr std::array<std::string_view, 8> kAllowedLibraries{
    "libtvm_ffi.so", "libcudart.so", "libcuda.so", "libstdc++.so",
    "libm.so",       "libgcc_s.so",  "libc.so",    "ld-linux-x86-64.so"};

struct SymbolRule {
  std::string_view prefix;  // matches a symbol name that starts with it
  bool exact;               // the whole name must equal prefix
  std::string_view why;
};

constexpr std::array<SymbolRule, 32> kForbiddenSymbols{{
    {"cublas", false, "cuBLAS"},
    {"cudnn", false, "cuDNN"},
    {"cufft", false, "cuFFT"},
    {"cusparse", false, "cuSPARSE"},
    {"cusolver", false, "cuSOLVER"},
    {"cutensor", false, "cuTENSOR"},
    {"curand", false, "cuRAND host API"},
    {"nccl", false, "NCCL"},
    {"nvrtc", false, "run-time compilation"},
    {"nvJitLink", false, "run-time linking"},
    {"_ZN2at", false, "PyTorch (ATen)"},
    {"_ZN3c10", false, "PyTorch (c10)"},
    {"_ZN5torch", false, "PyTorch"},
    {"dlopen", true, "dynamic loading"},
    {"dlmopen", true, "dynamic loading"},
    {"dlsym", true, "dynamic loading"},
    {"dlvsym", true, "dynamic loading"},
    {"__libc_dlopen_mode", true, "dynamic loading"},
    {"__libc_dlsym", true, "dynamic loading"},
    {"cuModuleLoad", false, "loads GPU code at run time instead of the inspected cubin"},
    {"cuLibraryLoad", false, "loads GPU code at run time instead of the inspected cubin"},
    {"cudaLibraryLoad", false, "loads GPU code at run time instead of the inspected cubin"},
    {"cuLinkCreate", false, "links GPU code at run time instead of the inspected cubin"},
    {"system", true, "runs other programs"},
    {"popen", true, "runs other programs"},
    {"fork", true, "runs other programs"},
    {"vfork", true, "runs other programs"},
    {"posix_spawn", false, "runs other programs"},
    {"execv", false, "runs other programs"},
    {"execl", false, "runs other programs"},
    {"fexecve", true, "runs other programs"},
    {"clone", true, "runs other programs"},
}};

struct HeaderRule {
  std::string_view prefix;  // of the path inside <...> or "..."
  std::string_view why;
};

constexpr std::array<HeaderRule, 12> kForbiddenHeaders{{
    {"cublas", "cuBLAS"},
    {"cudnn", "cuDNN"},
    {"cufft", "cuFFT"},
    {"cusparse", "cuSPARSE"},
    {"cusolver", "cuSOLVER"},
    {"cutensor", "cuTENSOR"},
    {"cutlass/", "CUTLASS"},
    {"cute/", "CuTe (CUTLASS)"},
    {"torch/", "PyTorch"},
    {"ATen/", "PyTorch (ATen)"},
    {"c10/", "PyTorch (c10)"},
    {"nvrtc", "run-time compilation"},
}};

// "cublasCreate_v2@libcublas.so.13" -> "cublasCreate_v2" (versions are not part of the name).
std::string_view bare_name(std::string_view symbol) {
  return symbol.substr(0, symbol.find('@'));
}

}  // namespace

std::optional<std::string> check_source_includes(std::string_view source) {
  static const std::regex include(R"(^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"])");
  std::vector<std::string> findings;
  while (!source.empty()) {
    const auto newline = source.find('\n');
    const std::string line(source.substr(0, newline));
    source = newline == std::string_view::npos ? std::string_view{} : source.substr(newline + 1);
    std::smatch match;
    if (!std::regex_search(line, match, include)) continue;
    const std::string header = match[1];
    for (const auto& rule : kForbiddenHeaders) {
      if (std::string_view(header).starts_with(rule.prefix)) {
        findings.push_back(fmt::format("includes <{}> ({})", header, rule.why));
        break;
      }
    }
  }
  if (findings.empty()) return std::nullopt;
  return fmt::format("library use is not allowed: {}", fmt::join(findings, "; "));
}

std::optional<std::string> check_imports(const ElfImports& imports) {
  std::vector<std::string> findings;
  for (const auto& library : imports.needed) {
    const bool allowed = std::any_of(kAllowedLibraries.begin(), kAllowedLibraries.end(),
                                     [&](std::string_view a) { return library.starts_with(a); });
    if (!allowed) findings.push_back(fmt::format("links {}", library));
  }
  for (const auto& symbol : imports.undefined_symbols) {
    const auto name = bare_name(symbol);
    for (const auto& rule : kForbiddenSymbols) {
      if (rule.exact ? name == rule.prefix : name.starts_with(rule.prefix)) {
        findings.push_back(fmt::format("imports {} ({})", name, rule.why));
        break;
      }
    }
  }
  if (findings.empty()) return std::nullopt;
  constexpr std::size_t kShown = 6;
  const std::size_t more = findings.size() > kShown ? findings.size() - kShown : 0;
  findings.resize(std::min(findings.size(), kShown));
  return fmt::format("library use is not allowed: the compiled object {}{}",
                     fmt::join(findings, ", "), more > 0 ? fmt::format(" and {} more", more) : "");
}

}  // namespace ptxbench::compile
