#include "ptxbench/eval/kernel_name.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace ptxbench::eval {
namespace {

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

// Drops a trailing bracketed group (the parameter list, or template arguments) matched from the
// end, so brackets inside it and before it stay balanced.
std::string drop_trailing_group(std::string text, char open, char close) {
  while (!text.empty() && text.back() == ' ') text.pop_back();
  if (text.empty() || text.back() != close) return text;
  int depth = 0;
  for (std::size_t i = text.size(); i-- > 0;) {
    if (text[i] == close) ++depth;
    if (text[i] == open && --depth == 0) {
      text.resize(i);
      break;
    }
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// The position of the last "::" outside any bracket.
std::size_t last_scope(const std::string& text) {
  int depth = 0;
  std::size_t found = std::string::npos;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    const char c = text[i];
    if (c == '(' || c == '<') ++depth;
    if (c == ')' || c == '>') --depth;
    if (depth == 0 && c == ':' && text[i + 1] == ':') found = i;
  }
  return found;
}

}  // namespace

KernelName::KernelName(std::string name) : given_(std::move(name)) {
  demangled_ = demangle(given_);
  function_ = drop_trailing_group(demangled_, '(', ')');
  // compute-sanitizer prints the anonymous namespace as "<unnamed>", the demangler as
  // "(anonymous namespace)": one spelling, so both name the same kernel.
  for (std::size_t at; (at = function_.find("<unnamed>")) != std::string::npos;) {
    function_.replace(at, 9, "(anonymous namespace)");
  }
  if (function_.rfind("void ", 0) == 0) function_.erase(0, 5);
  std::string unscoped = drop_trailing_group(function_, '<', '>');
  const std::size_t scope = last_scope(unscoped);
  identifier_ = scope == std::string::npos ? unscoped : unscoped.substr(scope + 2);
}

bool KernelName::same_kernel(const KernelName& other) const {
  if (given_ == other.given_) return true;
  return !function_.empty() && function_ == other.function_;
}

bool names_one_of(const KernelName& name, const std::vector<KernelName>& kernels) {
  const bool bare = name.function() == name.identifier();
  return std::any_of(kernels.begin(), kernels.end(), [&](const KernelName& kernel) {
    return name.same_kernel(kernel) ||
           (bare && !name.identifier().empty() && name.identifier() == kernel.identifier());
  });
}

std::vector<KernelName> kernel_names(const std::vector<std::string>& names) {
  std::vector<KernelName> out;
  out.reserve(names.size());
  for (const auto& name : names) out.emplace_back(name);
  return out;
}

}  // namespace ptxbench::eval
