#include "ptxbench/eval/sanitize/report_lines.hpp"

#include <cstddef>

namespace ptxbench::eval {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
std::size_t skip_spaces(std::string_view text, std::size_t at) {
  while (at < text.size() && is_space(text[at])) ++at;
  return at;
}
// The [0-9,]+ run at `at` (empty when there is none); `at` moves past it.
std::string_view count_at(std::string_view text, std::size_t& at) {
  const std::size_t begin = at;
  while (at < text.size() && ((text[at] >= '0' && text[at] <= '9') || text[at] == ',')) ++at;
  return text.substr(begin, at - begin);
}
// `word` then an optional "s" at `at`; `at` moves past them.
bool word_at(std::string_view text, std::size_t& at, std::string_view word) {
  if (text.substr(at, word.size()) != word) return false;
  at += word.size();
  if (at < text.size() && text[at] == 's') ++at;
  return true;
}

}  // namespace

std::optional<std::string_view> error_summary(std::string_view line) {
  constexpr std::string_view kSummary = "ERROR SUMMARY:";
  if (!line.starts_with(kSummary)) return std::nullopt;
  std::size_t at = skip_spaces(line, kSummary.size());
  const std::string_view count = count_at(line, at);
  const std::size_t after_count = at;
  at = skip_spaces(line, at);
  if (count.empty() || at == after_count || !word_at(line, at, "error")) return std::nullopt;
  if (skip_spaces(line, at) != line.size()) return std::nullopt;
  return count;
}

std::optional<std::pair<std::string_view, std::string_view>> racecheck_summary(
    std::string_view line) {
  constexpr std::string_view kSummary = "RACECHECK SUMMARY:";
  const auto summary = line.find(kSummary);
  if (summary == std::string_view::npos) return std::nullopt;
  const std::size_t first = summary + kSummary.size();
  for (auto open = line.rfind('('); open != std::string_view::npos && open >= first;
       open = open == 0 ? std::string_view::npos : line.rfind('(', open - 1)) {
    std::size_t at = skip_spaces(line, open + 1);
    const std::string_view errors = count_at(line, at);
    std::size_t gap = at;
    at = skip_spaces(line, at);
    if (errors.empty() || at == gap || !word_at(line, at, "error")) continue;
    if (at >= line.size() || line[at] != ',') continue;
    at = skip_spaces(line, at + 1);
    const std::string_view warnings = count_at(line, at);
    gap = at;
    at = skip_spaces(line, at);
    if (warnings.empty() || at == gap || !word_at(line, at, "warning")) continue;
    at = skip_spaces(line, at);
    if (at < line.size() && line[at] == ')') return std::pair{errors, warnings};
  }
  return std::nullopt;
}

std::vector<std::string_view> located_names(std::string_view line, bool device_frames) {
  std::vector<std::string_view> names;
  auto offset_after = [&line](std::size_t from) {  // the first "+0x<hex>" at or after `from`
    for (auto at = line.find("+0x", from); at != std::string_view::npos;
         at = line.find("+0x", at + 1)) {
      if (at + 3 < line.size() && is_hex(line[at + 3])) return at;
    }
    return std::string_view::npos;
  };
  std::size_t from = 0;
  while (from < line.size()) {
    // The earliest "at" (a whole word) or "Device Frame:" followed by white space.
    std::size_t start = std::string_view::npos, name = 0;
    for (std::size_t i = from; i < line.size() && start == std::string_view::npos; ++i) {
      std::size_t marker = 0;
      if (line.substr(i, 2) == "at" && (i == 0 || !is_word(line[i - 1])))
        marker = 2;
      else if (device_frames && line.substr(i, 13) == "Device Frame:")
        marker = 13;
      if (marker == 0 || i + marker >= line.size() || !is_space(line[i + marker])) continue;
      start = i;
      name = skip_spaces(line, i + marker);
    }
    if (start == std::string_view::npos || name >= line.size()) break;
    const std::size_t offset = offset_after(name + 1);
    if (offset == std::string_view::npos) break;  // no location anywhere further on
    names.push_back(line.substr(name, offset - name));
    from = offset + 3;
    while (from < line.size() && is_hex(line[from])) ++from;
  }
  return names;
}

}  // namespace ptxbench::eval
