// ptxas -v prints, per entry function:
//   ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_90a'
//   ptxas info    : Function properties for _Z6kernelPf
//       8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
//   ptxas info    : Used 90 registers, used 1 barriers, 1024 bytes smem, 400 bytes cmem[0]
// "Function properties" also appears for non-inlined device functions; their numbers belong to
// no entry and are skipped.
#include "ptxbench/compile/ptxas_resources.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

// Plain string scanning, not std::regex: libstdc++'s matcher recurses per character and a
// compiler log line of a few hundred kilobytes (a candidate's huge identifier) overflows the
// stack.
namespace ptxbench::compile {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

// The number that ends right before the first `suffix` preceded by a digit ("1024 bytes smem"
// for " bytes smem"); 0 when there is none or it does not fit an int.
int number_before(std::string_view line, std::string_view suffix) {
  for (auto at = line.find(suffix); at != std::string_view::npos; at = line.find(suffix, at + 1)) {
    std::size_t begin = at;
    while (begin > 0 && is_digit(line[begin - 1])) --begin;
    if (begin == at) continue;
    int value = 0;
    auto [end, error] = std::from_chars(line.data() + begin, line.data() + at, value);
    return error == std::errc() && end == line.data() + at ? value : 0;
  }
  return 0;
}

// "Used <digits> registers" anywhere in the line.
std::optional<int> used_registers(std::string_view line) {
  constexpr std::string_view kUsed = "Used ", kRegisters = " registers";
  for (auto at = line.find(kUsed); at != std::string_view::npos; at = line.find(kUsed, at + 1)) {
    std::size_t end = at + kUsed.size();
    while (end < line.size() && is_digit(line[end])) ++end;
    if (end == at + kUsed.size() || line.substr(end, kRegisters.size()) != kRegisters) continue;
    return number_before(line.substr(0, end + kRegisters.size()), kRegisters);
  }
  return std::nullopt;
}

// The name quoted after "Compiling entry function '".
std::optional<std::string_view> entry_name(std::string_view line) {
  constexpr std::string_view kEntry = "Compiling entry function '";
  const auto at = line.find(kEntry);
  if (at == std::string_view::npos) return std::nullopt;
  const auto begin = at + kEntry.size();
  const auto end = line.find('\'', begin);
  if (end == std::string_view::npos || end == begin) return std::nullopt;
  return line.substr(begin, end - begin);
}

// The word after "Function properties for ".
std::optional<std::string_view> properties_name(std::string_view line) {
  constexpr std::string_view kProperties = "Function properties for ";
  const auto at = line.find(kProperties);
  if (at == std::string_view::npos) return std::nullopt;
  auto begin = at + kProperties.size();
  while (begin < line.size() && is_space(line[begin])) ++begin;
  auto end = begin;
  while (end < line.size() && !is_space(line[end])) ++end;
  if (end == begin) return std::nullopt;
  return line.substr(begin, end - begin);
}

}  // namespace

std::vector<KernelResources> parse_ptxas_resources(std::string_view log) {
  std::vector<KernelResources> kernels;
  KernelResources* current = nullptr;
  std::string properties_of;  // the function the next "stack frame" line describes
  while (!log.empty()) {
    const auto newline = log.find('\n');
    const std::string_view line = log.substr(0, newline);
    log = newline == std::string_view::npos ? std::string_view{} : log.substr(newline + 1);
    if (auto entry = entry_name(line)) {
      kernels.push_back(KernelResources{.name = std::string(*entry)});
      current = &kernels.back();
      properties_of.clear();
    } else if (auto properties = properties_name(line)) {
      properties_of = *properties;
    } else if (line.find("bytes stack frame") != std::string_view::npos) {
      auto it = std::find_if(kernels.begin(), kernels.end(),
                             [&](const KernelResources& k) { return k.name == properties_of; });
      if (it != kernels.end()) {
        it->stack_bytes = number_before(line, " bytes stack frame");
        it->spill_store_bytes = number_before(line, " bytes spill stores");
        it->spill_load_bytes = number_before(line, " bytes spill loads");
      }
      properties_of.clear();
    } else if (auto registers = current != nullptr ? used_registers(line) : std::nullopt) {
      current->registers = *registers;
      current->shared_bytes = number_before(line, " bytes smem");
    }
  }
  return kernels;
}

}  // namespace ptxbench::compile
