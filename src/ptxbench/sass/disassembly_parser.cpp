// parse_disassembly: nvdisasm and `cuobjdump -sass` text into kernels and instructions.
//   nvdisasm:  `.section .text.<name>,"ax",@progbits` opens a kernel
//   cuobjdump: `Function : <name>` opens a kernel; `arch = sm_90a` opens a cubin of that arch
//   both:      `/*0a80*/  @!P0 HGMMA.64x128x16.F32.BF16 R24, gdesc[UR16], R24 ;  /* 0x... */`
#include <fmt/format.h>

#include <charconv>
#include <regex>

#include "ptxbench/sass/sass.hpp"

namespace ptxbench::sass {
namespace {

struct Line {
  std::string_view text;
  std::size_t number;
};

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

// The opcode of an instruction's text: the first token after an optional `@P0`-style guard.
std::string_view opcode_of(std::string_view body) {
  body = trim(body);
  if (body.starts_with('@')) {
    const auto space = body.find_first_of(" \t");
    body = space == std::string_view::npos ? std::string_view{} : trim(body.substr(space));
  }
  const auto end = body.find_first_of(" \t;");
  return body.substr(0, end);
}

// "/*0a80*/ ..." -> offset 0xa80 and what follows; nullopt for other lines (including the
// encoding comments "/* 0x000fe2... */" that cuobjdump prints).
std::optional<std::pair<std::uint32_t, std::string_view>> instruction_line(std::string_view line) {
  line = trim(line);
  if (!line.starts_with("/*")) return std::nullopt;
  const auto close = line.find("*/");
  if (close == std::string_view::npos || close <= 2) return std::nullopt;
  const auto digits = line.substr(2, close - 2);
  std::uint32_t offset = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), offset, 16);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  auto body = line.substr(close + 2);
  body = body.substr(0, body.find(';'));
  return std::pair{offset, body};
}

std::optional<std::string> kernel_header(std::string_view line) {
  line = trim(line);
  constexpr std::string_view kFunction = "Function : ";
  if (line.starts_with(kFunction)) return std::string(trim(line.substr(kFunction.size())));
  constexpr std::string_view kSection = ".section";
  if (line.starts_with(kSection)) {
    auto rest = trim(line.substr(kSection.size()));
    if (rest.starts_with(".text.")) {
      rest.remove_prefix(6);
      return std::string(rest.substr(0, rest.find_first_of(", \t")));
    }
  }
  return std::nullopt;
}

// `arch = sm_90a` in cuobjdump's per-cubin header.
std::optional<std::string> cubin_arch(std::string_view line) {
  line = trim(line);
  constexpr std::string_view kArch = "arch = ";
  if (!line.starts_with(kArch)) return std::nullopt;
  return std::string(trim(line.substr(kArch.size())));
}

}  // namespace

util::Expected<SassModule> parse_disassembly(std::string_view text, arch::Arch arch) {
  SassModule module;
  const std::string_view wanted_sm = arch::info(arch).sm;
  bool in_wanted_cubin = true;  // nvdisasm output is one cubin; cuobjdump says which arch
  SassKernel* current = nullptr;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    ++line_number;

    if (auto sm = cubin_arch(line)) {
      in_wanted_cubin = *sm == wanted_sm;
      current = nullptr;
      continue;
    }
    if (auto name = kernel_header(line)) {
      current = nullptr;
      // A kernel already seen (the same cubin listed twice) is not counted twice.
      if (in_wanted_cubin && module.find_kernel(*name) == nullptr) {
        module.kernels.push_back(SassKernel{.name = *name});
        current = &module.kernels.back();
      }
      continue;
    }
    auto instruction = instruction_line(line);
    if (!instruction) continue;
    if (current == nullptr) {
      if (!in_wanted_cubin || !module.kernels.empty()) continue;  // other arch, or a repeat
      return util::make_error(
          fmt::format("disassembly line {}: instruction outside any function", line_number));
    }
    const auto opcode = opcode_of(instruction->second);
    if (opcode.empty()) {
      return util::make_error(fmt::format("disassembly line {}: no opcode", line_number));
    }
    SassInstruction parsed{.offset = instruction->first,
                           .opcode = std::string(opcode),
                           .family = family_of(opcode, arch)};
    if (!parsed.family.empty()) ++current->family_counts[parsed.family];
    current->instructions.push_back(std::move(parsed));
  }
  return module;
}

}  // namespace ptxbench::sass
