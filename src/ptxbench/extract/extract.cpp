// Fenced code blocks per CommonMark: a fence is a line whose first non-space characters (at most
// three spaces of indent) are three or more backticks or tildes; it is closed by a line holding
// only a fence of the same character at least as long. A backtick fence's info string may not
// contain backticks, so inline code such as ```run()``` in prose opens nothing.
#include "ptxbench/extract/extract.hpp"

#include <vector>

namespace ptxbench::extract {
namespace {

struct Fence {
  char marker = 0;
  std::size_t length = 0;
  std::size_t indent = 0;
};

std::string normalise_newlines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      out.push_back('\n');
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    lines.push_back(text.substr(0, newline));
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
  }
  return lines;
}

std::size_t leading_spaces(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && line[n] == ' ') ++n;
  return n;
}

std::optional<Fence> opening_fence(std::string_view line) {
  const std::size_t indent = leading_spaces(line);
  if (indent > 3 || indent >= line.size()) return std::nullopt;
  const char marker = line[indent];
  if (marker != '`' && marker != '~') return std::nullopt;
  std::size_t length = 0;
  while (indent + length < line.size() && line[indent + length] == marker) ++length;
  if (length < 3) return std::nullopt;
  const auto info = line.substr(indent + length);
  if (marker == '`' && info.find('`') != std::string_view::npos) return std::nullopt;
  return Fence{marker, length, indent};
}

bool closes(std::string_view line, const Fence& fence) {
  const std::size_t indent = leading_spaces(line);
  if (indent > 3) return false;
  std::size_t length = 0;
  while (indent + length < line.size() && line[indent + length] == fence.marker) ++length;
  if (length < fence.length) return false;
  for (std::size_t i = indent + length; i < line.size(); ++i) {
    if (line[i] != ' ' && line[i] != '\t') return false;
  }
  return true;
}

// Content lines lose up to the fence's indent of leading spaces, as CommonMark says.
void append_content(std::string& block, std::string_view line, const Fence& fence) {
  const std::size_t drop = std::min(leading_spaces(line), fence.indent);
  block.append(line.substr(drop));
  block.push_back('\n');
}

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t\n") == std::string_view::npos;
}

}  // namespace

std::optional<std::string> extract_code(std::string_view response) {
  const std::string text = normalise_newlines(response);
  const auto lines = split_lines(text);
  std::optional<std::string> last;
  std::optional<Fence> open;
  std::string block;
  for (const auto line : lines) {
    if (open) {
      if (closes(line, *open)) {
        if (!is_blank(block)) last = block;
        open.reset();
      } else {
        append_content(block, line, *open);
      }
    } else if (auto fence = opening_fence(line)) {
      open = fence;
      block.clear();
    }
  }
  // An unterminated last fence (a reply cut off by the token limit) runs to the end.
  if (open && !is_blank(block)) last = block;
  return last;
}

}  // namespace ptxbench::extract
