// Kinds of compile failure, from nvcc / ptxas / linker output, for the error taxonomy. The first
// error line decides (later errors are often consequences of the first).
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace ptxbench::report {

enum class CompileErrorKind {
  kSyntax,               // the C++/CUDA front end could not parse: expected a ";", ...
  kUndefinedIdentifier,  // identifier is undefined, no member named, not declared
  kType,                 // no matching function / conversion, wrong argument count or type
  kPtxas,                // the PTX assembler rejected inline PTX (bad operand, wrong target ...)
  kLinker,               // nvlink / ld: undefined reference, multiple definition
  kTimeout,              // the compiler ran past its deadline
  kOther,
};

std::string_view to_string(CompileErrorKind kind);
// Position in kAllCompileErrorKinds (the enum's declaration order).
inline std::size_t compile_error_index(CompileErrorKind kind) {
  return static_cast<std::size_t>(kind);
}  // "syntax", "undefined_identifier", ...
std::optional<CompileErrorKind> parse_compile_error_kind(std::string_view name);
inline constexpr CompileErrorKind kAllCompileErrorKinds[] = {
    CompileErrorKind::kSyntax, CompileErrorKind::kUndefinedIdentifier,
    CompileErrorKind::kType,   CompileErrorKind::kPtxas,
    CompileErrorKind::kLinker, CompileErrorKind::kTimeout,
    CompileErrorKind::kOther};

// stage_message: the compile stage's one-line reason (it says when the compiler timed out);
// log: the compiler's captured output.
CompileErrorKind classify_compile_error(std::string_view stage_message, std::string_view log);

}  // namespace ptxbench::report
