#include "ptxbench/compile/log_scrub.hpp"

#include <cctype>

namespace ptxbench::compile {
namespace {

// "In file included from " / gcc's continuation "                 from ".
std::string_view include_prefix(std::string_view line) {
  for (std::string_view prefix : {"In file included from ", "                 from "})
    if (line.starts_with(prefix)) return line.substr(0, prefix.size());
  return {};
}

// The length of a leading "<path>:<line>" or "<path>(<line>)" location, 0 when there is none.
std::size_t path_length(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '"' || c == '\'') return 0;
    if ((c == ':' || c == '(') && i > 0 && i + 1 < text.size() &&
        std::isdigit(static_cast<unsigned char>(text[i + 1])))
      return i;
  }
  return 0;
}

bool inside(std::string_view path, std::string_view candidate_dir) {
  if (path.empty()) return false;
  if (path.front() != '/') return path.find("..") == std::string_view::npos;
  return path.starts_with(candidate_dir);
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

}  // namespace

std::string scrub_compiler_log(std::string_view log, const std::filesystem::path& candidate_dir) {
  std::string dir = candidate_dir.lexically_normal().string();
  if (!dir.empty() && dir.back() != '/') dir += '/';
  std::string out;
  bool quoting_outside = false;  // the lines under an outside location quote that file
  while (!log.empty()) {
    const auto newline = log.find('\n');
    std::string line(log.substr(0, newline));
    log = newline == std::string_view::npos ? std::string_view{} : log.substr(newline + 1);

    const std::string_view prefix = include_prefix(line);
    const std::string_view rest = std::string_view(line).substr(prefix.size());
    const std::size_t length = path_length(rest);
    if (length > 0) {
      const std::string_view path = rest.substr(0, length);
      quoting_outside = !inside(path, dir);
      if (quoting_outside) {
        const auto slash = path.rfind('/');
        const std::string name(slash == std::string_view::npos ? path : path.substr(slash + 1));
        line = std::string(prefix) + std::string(kOutsidePathMark) + name +
               std::string(rest.substr(length));
      }
    } else if (quoting_outside && !line.empty() &&
               std::isspace(static_cast<unsigned char>(line[0]))) {
      continue;  // a quoted source line of a file outside the candidate
    } else {
      quoting_outside = false;
    }
    replace_all(line, dir, "");
    out += line;
    if (newline != std::string_view::npos || !log.empty()) out += '\n';
  }
  return out;
}

}  // namespace ptxbench::compile
