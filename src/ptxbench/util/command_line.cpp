#include "ptxbench/util/command_line.hpp"

#include <fmt/format.h>

#include <optional>

namespace ptxbench::util {
namespace {

constexpr std::string_view kBlanks = " \t\n";
constexpr std::string_view kOperators = "|;&<>()`";
// The characters a backslash escapes inside double quotes (POSIX sh, 2.2.3).
constexpr std::string_view kEscapedInDoubleQuotes = "\"\\$`\n";

bool is_one_of(char c, std::string_view set) {
  return set.find(c) != std::string_view::npos;
}

}  // namespace

Expected<std::vector<std::string>> split_command_line(std::string_view line) {
  std::vector<std::string> words;
  std::optional<std::string> word;  // set once a word has begun, even by an empty ""
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (is_one_of(c, kBlanks)) {
      if (word) words.push_back(std::move(*word));
      word.reset();
      continue;
    }
    if (is_one_of(c, kOperators))
      return make_error(fmt::format(
          "'{}' outside quotes: the line is one program and its arguments, not run by a shell "
          "(quote it to pass it on)",
          c));
    if (!word) word.emplace();
    if (c == '\\') {
      if (++i == line.size()) return make_error("ends with a backslash");
      if (line[i] != '\n') *word += line[i];  // backslash-newline continues the line
    } else if (c == '\'') {
      const std::size_t end = line.find('\'', i + 1);
      if (end == std::string_view::npos) return make_error("a single quote is not closed");
      *word += line.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      for (++i;; ++i) {
        if (i == line.size()) return make_error("a double quote is not closed");
        if (line[i] == '"') break;
        if (line[i] == '\\' && i + 1 < line.size() &&
            is_one_of(line[i + 1], kEscapedInDoubleQuotes)) {
          if (line[++i] != '\n') *word += line[i];
        } else {
          *word += line[i];
        }
      }
    } else {
      *word += c;
    }
  }
  if (word) words.push_back(std::move(*word));
  return words;
}

}  // namespace ptxbench::util
