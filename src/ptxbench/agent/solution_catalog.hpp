// The project's solutions and broken variants, as the demo replays them. Each file starts with
//   // ptxbench: task=<task> arch=<arch> expect=<VERDICT>
// and is found by that line, wherever it lies under solutions/.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/eval/evaluation.hpp"

namespace ptxbench::agent {

struct SolutionHeader {
  std::string task;
  arch::Arch arch = arch::Arch::kHopper;
  eval::Verdict expect = eval::Verdict::kPassed;
};

// nullopt when the line is not a header; an error text in `problem` when it is one but is
// malformed (unknown arch or verdict, a missing key).
std::optional<SolutionHeader> parse_solution_header(std::string_view first_line,
                                                    std::string& problem);

struct SolutionFile {
  std::filesystem::path path;
  std::string group;  // first folder under the solutions directory: hopper, blackwell, broken
  SolutionHeader header;
};

struct SolutionScan {
  std::filesystem::path dir;          // the directory scanned
  std::vector<SolutionFile> files;    // sorted by path
  std::vector<std::string> problems;  // "<file>: <why it was skipped>"
  std::size_t files_seen = 0;         // .cu files looked at
};

SolutionScan scan_solutions(const std::filesystem::path& dir);

// $PTXBENCH_HOME/solutions when set, else the source tree's solutions/.
std::filesystem::path default_solutions_dir();

}  // namespace ptxbench::agent
