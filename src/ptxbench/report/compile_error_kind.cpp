#include "ptxbench/report/compile_error_kind.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace ptxbench::report {
namespace {

constexpr std::array<std::pair<CompileErrorKind, std::string_view>, 7> kNames{{
    {CompileErrorKind::kSyntax, "syntax"},
    {CompileErrorKind::kUndefinedIdentifier, "undefined_identifier"},
    {CompileErrorKind::kType, "type"},
    {CompileErrorKind::kPtxas, "ptxas"},
    {CompileErrorKind::kLinker, "linker"},
    {CompileErrorKind::kTimeout, "timeout"},
    {CompileErrorKind::kOther, "other"},
}};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool contains_any(std::string_view line, std::initializer_list<std::string_view> needles) {
  return std::any_of(needles.begin(), needles.end(),
                     [line](std::string_view n) { return line.find(n) != std::string_view::npos; });
}

// The kind one lower-cased output line reports, if it reports an error at all. Tool prefixes
// come first: a ptxas or linker line may quote C++-looking text.
std::optional<CompileErrorKind> kind_of_line(std::string_view line) {
  if (line.find("ptxas") != std::string_view::npos && contains_any(line, {"error", "fatal"})) {
    return CompileErrorKind::kPtxas;
  }
  if (line.starts_with("ld:") ||
      contains_any(line, {"nvlink error", "nvlink fatal", "undefined reference",
                          "multiple definition", "ld returned", "/ld:"})) {
    return CompileErrorKind::kLinker;
  }
  if (!contains_any(line, {"error", "fatal"})) return std::nullopt;
  if (contains_any(line, {"is undefined", "was not declared", "not declared in this scope",
                          "has no member", "no member named", "undeclared identifier",
                          "cannot open source file", "no such file"})) {
    return CompileErrorKind::kUndefinedIdentifier;
  }
  if (contains_any(
          line, {"no instance of", "no suitable", "cannot be used to initialize",
                 "argument of type", "too few arguments", "too many arguments", "incompatible",
                 "cannot convert", "a value of type", "expression must have", "does not match type",
                 "invalid type", "no operator", "not a constant", "must be a modifiable lvalue"})) {
    return CompileErrorKind::kType;
  }
  if (contains_any(line,
                   {"expected a", "expected an", "expected ", "unexpected", "unrecognized token",
                    "missing closing", "extra text", "syntax error", "unbalanced"})) {
    return CompileErrorKind::kSyntax;
  }
  return CompileErrorKind::kOther;
}

}  // namespace

std::string_view to_string(CompileErrorKind kind) {
  for (const auto& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "other";
}

std::optional<CompileErrorKind> parse_compile_error_kind(std::string_view name) {
  for (const auto& [k, n] : kNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

CompileErrorKind classify_compile_error(std::string_view stage_message, std::string_view log) {
  const std::string message = lower(stage_message);
  if (contains_any(message, {"timed out", "timeout", "deadline"}))
    return CompileErrorKind::kTimeout;
  const std::string text = lower(log);
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    const auto line = rest.substr(0, end);
    if (auto kind = kind_of_line(line)) return *kind;
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  // No error line in the log (e.g. it was cut off): the stage message may still say.
  if (auto kind = kind_of_line(message)) return *kind;
  return CompileErrorKind::kOther;
}

}  // namespace ptxbench::report
