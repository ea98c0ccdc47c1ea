#include "ptxbench/agent/solution_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "ptxbench/config.hpp"

namespace ptxbench::agent {
namespace {
constexpr std::string_view kMarker = "// ptxbench:";
}  // namespace

std::optional<SolutionHeader> parse_solution_header(std::string_view first_line,
                                                    std::string& problem) {
  problem.clear();
  if (!first_line.starts_with(kMarker)) return std::nullopt;
  std::map<std::string, std::string> fields;
  std::istringstream words{std::string(first_line.substr(kMarker.size()))};
  for (std::string word; words >> word;) {
    auto eq = word.find('=');
    if (eq == std::string::npos) continue;
    fields[word.substr(0, eq)] = word.substr(eq + 1);
  }
  for (const char* key : {"task", "arch", "expect"}) {
    if (!fields.contains(key) || fields[key].empty()) {
      problem = fmt::format("header without {}=", key);
      return std::nullopt;
    }
  }
  auto arch = arch::parse(fields["arch"]);
  if (!arch) {
    problem = fmt::format("unknown arch '{}'", fields["arch"]);
    return std::nullopt;
  }
  auto expect = eval::parse_verdict(fields["expect"]);
  if (!expect) {
    problem = fmt::format("unknown verdict '{}'", fields["expect"]);
    return std::nullopt;
  }
  return SolutionHeader{.task = fields["task"], .arch = *arch, .expect = *expect};
}

SolutionScan scan_solutions(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  SolutionScan scan{.dir = dir};
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    scan.problems.push_back(fmt::format("{}: no such directory", dir.string()));
    return scan;
  }
  for (auto it = fs::recursive_directory_iterator(dir, error); !error && it != fs::end(it);
       it.increment(error)) {
    const fs::path& path = it->path();
    if (!it->is_regular_file() || path.extension() != ".cu") continue;
    ++scan.files_seen;
    std::ifstream in(path);
    std::string first_line;
    std::getline(in, first_line);
    if (!first_line.empty() && first_line.back() == '\r') first_line.pop_back();
    std::string problem;
    auto header = parse_solution_header(first_line, problem);
    if (!header) {
      if (!problem.empty()) scan.problems.push_back(fmt::format("{}: {}", path.string(), problem));
      continue;
    }
    fs::path relative = path.lexically_relative(dir);
    std::string group = relative.has_parent_path() ? relative.begin()->string() : std::string();
    scan.files.push_back({.path = path, .group = group, .header = *header});
  }
  std::sort(scan.files.begin(), scan.files.end(),
            [](const SolutionFile& a, const SolutionFile& b) { return a.path < b.path; });
  return scan;
}

std::filesystem::path default_solutions_dir() {
  if (const char* home = std::getenv("PTXBENCH_HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / "solutions";
  }
  return config::source_path("solutions");
}

}  // namespace ptxbench::agent
