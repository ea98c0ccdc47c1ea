#include "ptxbench/compile/lint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "ptxbench/util/fs.hpp"

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

// A resolved path is refused when its file name starts with a file rule ("cublas") or one of its
// directories is named by a directory rule ("cutlass/").
std::optional<std::string_view> forbidden_path(const std::filesystem::path& path) {
  const std::string file = path.filename().string();
  for (const auto& rule : kForbiddenHeaders) {
    if (rule.prefix.ends_with('/')) {
      const auto directory = rule.prefix.substr(0, rule.prefix.size() - 1);
      for (const auto& part : path.parent_path()) {
        if (part.string() == directory) return rule.why;
      }
    } else if (std::string_view(file).starts_with(rule.prefix)) {
      return rule.why;
    }
  }
  return std::nullopt;
}

// "cublasCreate_v2@libcublas.so.13" -> "cublasCreate_v2" (versions are not part of the name).
std::string_view bare_name(std::string_view symbol) {
  return symbol.substr(0, symbol.find('@'));
}

}  // namespace

namespace {

// The header of an `#include <h>` / `#include "h"` line, or nullopt. A plain scan, not
// std::regex, whose matcher recurses per character and overflows on a very long line.
std::optional<std::string_view> included_header(std::string_view line) {
  auto skip_blanks = [&line] {
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  };
  skip_blanks();
  if (!line.starts_with('#')) return std::nullopt;
  line.remove_prefix(1);
  skip_blanks();
  if (!line.starts_with("include")) return std::nullopt;
  line.remove_prefix(7);
  skip_blanks();
  if (line.empty() || (line.front() != '<' && line.front() != '"')) return std::nullopt;
  line.remove_prefix(1);
  const auto end = line.find_first_of(">\"");
  if (end == 0 || end == std::string_view::npos) return std::nullopt;
  return line.substr(0, end);
}

}  // namespace

std::optional<std::string> check_source_includes(std::string_view source) {
  std::vector<std::string> findings;
  while (!source.empty()) {
    const auto newline = source.find('\n');
    const std::string_view line = source.substr(0, newline);
    source = newline == std::string_view::npos ? std::string_view{} : source.substr(newline + 1);
    const auto header = included_header(line);
    if (!header) continue;
    for (const auto& rule : kForbiddenHeaders) {
      if (header->starts_with(rule.prefix)) {
        findings.push_back(fmt::format("includes <{}> ({})", *header, rule.why));
        break;
      }
    }
  }
  if (findings.empty()) return std::nullopt;
  return fmt::format("library use is not allowed: {}", fmt::join(findings, "; "));
}

util::Expected<std::vector<std::string>> resolved_includes(const std::filesystem::path& work_dir) {
  const auto rule_file = work_dir / kDependencyFileName;
  auto rule = util::read_file(rule_file);
  if (!rule) {
    return util::make_error(fmt::format("the compile wrote no dependency rule ({}): {}",
                                        kDependencyFileName, rule.error().message));
  }
  auto paths = parse_dependency_rule(*rule);
  std::erase(paths, std::string(kSourceFileName));
  return paths;
}

std::vector<std::string> parse_dependency_rule(std::string_view rule) {
  std::vector<std::string> paths;
  std::string current;
  bool after_colon = false;
  auto flush = [&] {
    if (!current.empty() && after_colon) paths.push_back(current);
    current.clear();
  };
  for (std::size_t i = 0; i < rule.size(); ++i) {
    const char c = rule[i];
    if (c == '\\' && i + 1 < rule.size() && (rule[i + 1] == ' ' || rule[i + 1] == '#')) {
      current += rule[++i];  // an escaped space (or #) inside a path
    } else if (c == '\\' && i + 1 < rule.size() && (rule[i + 1] == '\n' || rule[i + 1] == '\r')) {
      flush();  // a line continuation
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      flush();
    } else if (c == ':' && !after_colon &&
               (i + 1 == rule.size() || rule[i + 1] == ' ' || rule[i + 1] == '\n')) {
      current.clear();  // the target
      after_colon = true;
    } else {
      current += c;
    }
  }
  flush();
  return paths;
}

std::optional<std::string> check_resolved_includes(const std::vector<std::string>& paths) {
  std::vector<std::string> findings;
  for (const auto& path : paths) {
    if (auto why = forbidden_path(path)) {
      findings.push_back(fmt::format("includes {} ({})", path, *why));
    }
  }
  if (findings.empty()) return std::nullopt;
  constexpr std::size_t kShown = 4;
  const std::size_t more = findings.size() > kShown ? findings.size() - kShown : 0;
  findings.resize(std::min(findings.size(), kShown));
  return fmt::format("library use is not allowed: the preprocessed source {}{}",
                     fmt::join(findings, "; "), more > 0 ? fmt::format(" and {} more", more) : "");
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
