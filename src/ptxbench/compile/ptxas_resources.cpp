// ptxas -v prints, per entry function:
//   ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_90a'
//   ptxas info    : Function properties for _Z6kernelPf
//       8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
//   ptxas info    : Used 90 registers, used 1 barriers, 1024 bytes smem, 400 bytes cmem[0]
// "Function properties" also appears for non-inlined device functions; their numbers belong to
// no entry and are skipped.
#include "ptxbench/compile/ptxas_resources.hpp"

#include <algorithm>
#include <regex>

namespace ptxbench::compile {
namespace {

int number_before(const std::string& line, const std::regex& pattern) {
  std::smatch match;
  if (!std::regex_search(line, match, pattern)) return 0;
  try {
    return std::stoi(match[1]);
  } catch (const std::exception&) {
    return 0;  // absurdly large values are not worth a failure
  }
}

}  // namespace

std::vector<KernelResources> parse_ptxas_resources(std::string_view log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex properties(R"(Function properties for (\S+))");
  static const std::regex registers(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex stack(R"((\d+) bytes stack frame)");
  static const std::regex spill_stores(R"((\d+) bytes spill stores)");
  static const std::regex spill_loads(R"((\d+) bytes spill loads)");

  std::vector<KernelResources> kernels;
  KernelResources* current = nullptr;
  std::string properties_of;  // the function the next "stack frame" line describes
  while (!log.empty()) {
    const auto newline = log.find('\n');
    const std::string line(log.substr(0, newline));
    log = newline == std::string_view::npos ? std::string_view{} : log.substr(newline + 1);
    std::smatch match;
    if (std::regex_search(line, match, entry)) {
      kernels.push_back(KernelResources{.name = match[1]});
      current = &kernels.back();
      properties_of.clear();
    } else if (std::regex_search(line, match, properties)) {
      properties_of = match[1];
    } else if (line.find("bytes stack frame") != std::string::npos) {
      auto it = std::find_if(kernels.begin(), kernels.end(),
                             [&](const KernelResources& k) { return k.name == properties_of; });
      if (it != kernels.end()) {
        it->stack_bytes = number_before(line, stack);
        it->spill_store_bytes = number_before(line, spill_stores);
        it->spill_load_bytes = number_before(line, spill_loads);
      }
      properties_of.clear();
    } else if (current != nullptr && std::regex_search(line, registers)) {
      current->registers = number_before(line, registers);
      current->shared_bytes = number_before(line, smem);
    }
  }
  return kernels;
}

}  // namespace ptxbench::compile
