#include "fenced_block.hpp"

#include <cctype>
#include <sstream>

namespace ptxbench::context_docs {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

struct Fence {
  char mark;
  std::size_t length;
  std::string_view rest;  // the text after the fence characters
};

std::optional<Fence> parse_fence(std::string_view line) {
  std::size_t indent = 0;
  while (indent < line.size() && indent < 4 && line[indent] == ' ') ++indent;
  if (indent > 3 || indent == line.size()) return std::nullopt;
  const char mark = line[indent];
  if (mark != '`' && mark != '~') return std::nullopt;
  std::size_t end = indent;
  while (end < line.size() && line[end] == mark) ++end;
  if (end - indent < 3) return std::nullopt;
  return Fence{mark, end - indent, line.substr(end)};
}

bool is_opcode_char(char c) {
  return std::isupper(static_cast<unsigned char>(c)) ||
         std::isdigit(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

std::vector<FencedBlock> fenced_blocks(std::string_view markdown) {
  std::vector<FencedBlock> blocks;
  std::optional<Fence> open;
  FencedBlock current;
  int line_number = 0;
  while (!markdown.empty()) {
    const std::size_t newline = markdown.find('\n');
    std::string_view line = markdown.substr(0, newline);
    markdown.remove_prefix(newline == std::string_view::npos ? markdown.size() : newline + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_number;
    const auto fence = parse_fence(line);
    if (!open) {
      if (fence) {
        open = fence;
        current = FencedBlock{.info = std::string(trim(fence->rest)), .first_line = line_number};
      }
      continue;
    }
    if (fence && fence->mark == open->mark && fence->length >= open->length &&
        trim(fence->rest).empty()) {
      blocks.push_back(std::move(current));
      open.reset();
      continue;
    }
    current.code.append(line);
    current.code.push_back('\n');
  }
  if (open) {
    current.terminated = false;
    blocks.push_back(std::move(current));
  }
  return blocks;
}

std::optional<CompileMarker> parse_compile_marker(std::string_view info) {
  std::istringstream words{std::string(info)};
  CompileMarker marker;
  if (!(words >> marker.language)) return std::nullopt;
  if (marker.language != "cuda" && marker.language != "cpp") return std::nullopt;
  constexpr std::string_view kSassKey = "sass=";
  for (std::string word; words >> word;) {
    if (word == "compile") {
      marker.compile = true;
    } else if (word.rfind(kSassKey, 0) == 0) {
      std::istringstream list(word.substr(kSassKey.size()));
      for (std::string opcode; std::getline(list, opcode, ',');) {
        if (!opcode.empty()) marker.sass.push_back(opcode);
      }
    } else {
      marker.unknown.push_back(word);
    }
  }
  return marker;
}

bool has_opcode(std::string_view disassembly, std::string_view opcode) {
  if (opcode.empty()) return false;
  for (std::size_t at = disassembly.find(opcode); at != std::string_view::npos;
       at = disassembly.find(opcode, at + 1)) {
    const bool starts_word = at == 0 || !is_opcode_char(disassembly[at - 1]);
    const std::size_t after = at + opcode.size();
    const bool ends_word = after == disassembly.size() || !is_opcode_char(disassembly[after]);
    if (starts_word && ends_word) return true;
  }
  return false;
}

}  // namespace ptxbench::context_docs
