#include "ptxbench/eval/static/run_signature.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "ptxbench/eval/kernel_name.hpp"

namespace ptxbench::eval {
namespace {

constexpr std::string_view kExportMacro = "TVM_FFI_DLL_EXPORT_TYPED_FUNC";
constexpr std::string_view kExportedSymbol = "__tvm_ffi_run";

// The source with comments replaced by spaces (string literals are not special-cased: a macro
// name inside one at worst makes the name ambiguous, which means "unknown").
std::string without_comments(std::string_view source) {
  std::string out(source);
  for (std::size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '/' && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out[i] == '/' && out[i + 1] == '*') {
      const auto end = out.find("*/", i + 2);
      const auto stop = end == std::string::npos ? out.size() : end + 2;
      for (; i < stop; ++i) {
        if (out[i] != '\n') out[i] = ' ';
      }
      --i;
    }
  }
  return out;
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

bool is_qualified_identifier(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != ':') return false;
  }
  return !std::isdigit(static_cast<unsigned char>(text.front()));
}

bool is_tensor_type(std::string_view type) {
  return type.find("Tensor") != std::string_view::npos;  // TensorView, Tensor, DLTensor*
}

}  // namespace

std::string exported_function_name(std::string_view source) {
  const std::string text = without_comments(source);
  std::string found;
  for (auto at = text.find(kExportMacro); at != std::string::npos;
       at = text.find(kExportMacro, at + 1)) {
    auto open = text.find_first_not_of(" \t\r\n", at + kExportMacro.size());
    if (open == std::string::npos || text[open] != '(') continue;
    const auto comma = text.find(',', open);
    const auto close = text.find(')', open);
    if (comma == std::string::npos || close == std::string::npos || close < comma) continue;
    if (trim(std::string_view(text).substr(open + 1, comma - open - 1)) != "run") continue;
    std::string function = trim(std::string_view(text).substr(comma + 1, close - comma - 1));
    if (function.starts_with("::")) function.erase(0, 2);
    if (!is_qualified_identifier(function)) return {};  // a lambda or an expression
    if (!found.empty() && found != function) return {};
    found = std::move(function);
  }
  return found;
}

std::optional<std::vector<std::string>> demangled_parameters(std::string_view demangled) {
  // The parameter list is the trailing parenthesised group ("(anonymous namespace)::f(int)").
  const auto close = demangled.find_last_of(')');
  if (close == std::string_view::npos || close + 1 != demangled.size()) return std::nullopt;
  int depth = 0;
  std::size_t open = std::string_view::npos;
  for (std::size_t i = close + 1; i-- > 0;) {
    if (demangled[i] == ')') ++depth;
    if (demangled[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string_view::npos || open == 0) return std::nullopt;
  std::vector<std::string> parameters;
  const auto inside = demangled.substr(open + 1, close - open - 1);
  depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= inside.size(); ++i) {
    const char c = i < inside.size() ? inside[i] : ',';
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') --depth;
    if (c != ',' || depth != 0) continue;
    parameters.push_back(trim(inside.substr(start, i - start)));
    start = i + 1;
  }
  if (parameters.size() == 1 && (parameters[0].empty() || parameters[0] == "void"))
    return std::vector<std::string>{};
  if (std::any_of(parameters.begin(), parameters.end(), [](auto& p) { return p.empty(); }))
    return std::nullopt;
  return parameters;
}

RunSignature read_run_signature(std::string_view source,
                                const std::vector<std::string>& defined_functions) {
  RunSignature signature;
  signature.exported = std::find(defined_functions.begin(), defined_functions.end(),
                                 kExportedSymbol) != defined_functions.end();
  signature.function = exported_function_name(source);
  if (signature.function.empty()) return signature;
  const std::string qualified_suffix = "::" + signature.function;
  std::vector<std::string> matches;
  for (const auto& symbol : defined_functions) {
    if (!symbol.starts_with("_Z")) continue;  // extern "C" functions carry no types
    const KernelName name(symbol);
    const std::string& function = name.function();
    if (function == signature.function || function.ends_with(qualified_suffix))
      matches.push_back(name.demangled());
  }
  if (matches.size() != 1) return signature;  // absent, or overloaded: not decidable
  signature.parameters = demangled_parameters(matches.front());
  return signature;
}

std::optional<std::string> signature_mismatch(const task::Task& task,
                                              const RunSignature& signature) {
  if (!signature.exported)
    return std::string(
        "the object exports no run(): export it with TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run)");
  if (!signature.parameters) return std::nullopt;
  std::vector<std::string> expected;
  for (const auto& t : task.inputs) expected.push_back(t.name);
  for (const auto& t : task.outputs) expected.push_back(t.name);
  const auto& parameters = *signature.parameters;
  const std::string call =
      fmt::format("the task calls run({}): {} tensors, its inputs then its outputs",
                  fmt::join(expected, ", "), expected.size());
  if (parameters.size() != expected.size())
    return fmt::format("{}() takes {} parameter{} ({}), but {}", signature.function,
                       parameters.size(), parameters.size() == 1 ? "" : "s",
                       fmt::join(parameters, ", "), call);
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (!is_tensor_type(parameters[i]))
      return fmt::format("{}() takes {} as parameter {} ({}), but {}", signature.function,
                         parameters[i], i + 1, expected[i], call);
  }
  return std::nullopt;
}

}  // namespace ptxbench::eval
