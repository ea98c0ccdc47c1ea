#include "ptxbench/report/view/code_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>

#include "ptxbench/report/svg.hpp"

namespace ptxbench::report::view {
namespace {

bool is_keyword(std::string_view word) {
  static constexpr std::array<std::string_view, 44> kKeywords{"__global__",
                                                              "__device__",
                                                              "__host__",
                                                              "__shared__",
                                                              "__constant__",
                                                              "__restrict__",
                                                              "__syncthreads",
                                                              "__forceinline__",
                                                              "asm",
                                                              "volatile",
                                                              "extern",
                                                              "static",
                                                              "const",
                                                              "constexpr",
                                                              "inline",
                                                              "template",
                                                              "typename",
                                                              "struct",
                                                              "class",
                                                              "namespace",
                                                              "using",
                                                              "return",
                                                              "if",
                                                              "else",
                                                              "for",
                                                              "while",
                                                              "do",
                                                              "break",
                                                              "continue",
                                                              "switch",
                                                              "case",
                                                              "default",
                                                              "void",
                                                              "int",
                                                              "unsigned",
                                                              "float",
                                                              "double",
                                                              "bool",
                                                              "char",
                                                              "auto",
                                                              "uint32_t",
                                                              "uint64_t",
                                                              "int64_t",
                                                              "static_assert"};
  return std::find(kKeywords.begin(), kKeywords.end(), word) != kKeywords.end();
}

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

std::string span(std::string_view cls, std::string_view text) {
  return fmt::format("<span class=\"{}\">{}</span>", cls, xml_escape(text));
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

std::string highlight_code(std::string_view code) {
  std::string out;
  out.reserve(code.size() * 5 / 4);
  std::size_t i = 0;
  bool line_start = true;
  while (i < code.size()) {
    const char c = code[i];
    if (line_start && c == '#') {  // a preprocessor line, to its end
      const auto end = std::min(code.find('\n', i), code.size());
      out += span("p", code.substr(i, end - i));
      i = end;
      continue;
    }
    if (c == '/' && i + 1 < code.size() && (code[i + 1] == '/' || code[i + 1] == '*')) {
      const bool line = code[i + 1] == '/';
      auto end = line ? code.find('\n', i) : code.find("*/", i + 2);
      end = end == std::string_view::npos ? code.size() : (line ? end : end + 2);
      out += span("c", code.substr(i, end - i));
      i = end;
      continue;
    }
    if (c == '"' || c == '\'') {
      std::size_t end = i + 1;
      while (end < code.size() && code[end] != c && code[end] != '\n') {
        end += code[end] == '\\' ? 2 : 1;
      }
      end = std::min(end + 1, code.size());
      out += span("s", code.substr(i, end - i));
      i = end;
      line_start = false;
      continue;
    }
    if (word_char(c)) {
      std::size_t end = i;
      while (end < code.size() && word_char(code[end])) ++end;
      const auto word = code.substr(i, end - i);
      if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
        out += span("n", word);
      } else if (is_keyword(word)) {
        out += span("k", word);
      } else {
        out += xml_escape(word);
      }
      i = end;
      line_start = false;
      continue;
    }
    out += xml_escape(code.substr(i, 1));
    if (c == '\n') {
      line_start = true;
    } else if (c != ' ' && c != '\t') {
      line_start = false;
    }
    ++i;
  }
  return out;
}

LineDiff diff_lines(std::string_view a, std::string_view b, std::size_t max_lines) {
  const auto x = split_lines(a);
  const auto y = split_lines(b);
  LineDiff diff;
  if (x.size() > max_lines || y.size() > max_lines) {
    diff.too_large = true;
    return diff;
  }
  // lcs[i][j]: length of the longest common subsequence of x[i..] and y[j..].
  const std::size_t n = x.size();
  const std::size_t m = y.size();
  std::vector<std::uint16_t> lcs((n + 1) * (m + 1), 0);
  auto at = [m, &lcs](std::size_t i, std::size_t j) -> std::uint16_t& {
    return lcs[i * (m + 1) + j];
  };
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      at(i, j) = x[i] == y[j] ? static_cast<std::uint16_t>(at(i + 1, j + 1) + 1)
                              : std::max(at(i + 1, j), at(i, j + 1));
    }
  }
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] == y[j]) {
      diff.lines.push_back({DiffLine::Kind::kSame, std::string(x[i])});
      ++i;
      ++j;
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {  // removals first
      diff.lines.push_back({DiffLine::Kind::kRemoved, std::string(x[i++])});
      ++diff.removed;
    } else {
      diff.lines.push_back({DiffLine::Kind::kAdded, std::string(y[j++])});
      ++diff.added;
    }
  }
  return diff;
}

std::string diff_html(const LineDiff& diff, int context) {
  const auto& lines = diff.lines;
  std::vector<bool> shown(lines.size(), false);
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (lines[k].kind == DiffLine::Kind::kSame) continue;
    const auto from = k >= static_cast<std::size_t>(context) ? k - context : 0;
    const auto to = std::min(lines.size(), k + context + 1);
    for (auto s = from; s < to; ++s) shown[s] = true;
  }
  std::string out;
  bool gap = false;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (!shown[k]) {
      gap = true;
      continue;
    }
    if (gap || (k == 0 && !out.empty())) out += "<span class=\"hunk\">@@</span>\n";
    gap = false;
    switch (lines[k].kind) {
      case DiffLine::Kind::kSame:
        out += " " + xml_escape(lines[k].text) + "\n";
        break;
      case DiffLine::Kind::kAdded:
        out += "<ins>+" + xml_escape(lines[k].text) + "</ins>";  // a block: its own line
        break;
      case DiffLine::Kind::kRemoved:
        out += "<del>-" + xml_escape(lines[k].text) + "</del>";
        break;
    }
  }
  return out;
}

}  // namespace ptxbench::report::view
