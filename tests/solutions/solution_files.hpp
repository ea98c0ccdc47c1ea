// The expert solutions, the simple honest kernels and the broken controls under solutions/: their
// header line (task, arch, expected verdict) and the blocks they embed, whose single source of
// truth is solutions/ptx/<family>.cuh (PTX wrappers) or solutions/kernels/<name>.cuh (shared
// kernel bodies).
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::solutions_test {

// "// ptxbench: task=gemm_n7168_k5120 arch=hopper expect=PASSED", the first line of every file.
struct SolutionHeader {
  std::string task;
  arch::Arch arch = arch::Arch::kHopper;
  std::string expect;  // a verdict name: PASSED, NOT_RUN, INCORRECT_NUMERICAL, ...
};

struct SolutionFile {
  std::filesystem::path path;
  std::string text;
  SolutionHeader header;
};

// One `// ptx-begin: <family>` .. `// ptx-end: <family>` block, markers included.
struct EmbeddedBlock {
  std::string family;
  std::string text;
  int first_line = 0;  // 1-based line of the begin marker
};

std::filesystem::path repo_root();
std::filesystem::path ptx_dir();

// An error names the file and what is wrong with its header.
util::Expected<SolutionHeader> parse_header(std::string_view text);

// Every .cu under solutions/{hopper,blackwell,simple,broken}, sorted by path; a file whose header
// does not parse is an error.
util::Expected<std::vector<SolutionFile>> load_solutions();

// Blocks in order; unbalanced or mismatched markers are an error.
util::Expected<std::vector<EmbeddedBlock>> embedded_blocks(std::string_view text);

// The single source of a block: solutions/ptx/<name>.cuh (a PTX wrapper family) or
// solutions/kernels/<name>.cuh (a kernel body several solutions share).
std::filesystem::path block_source(const std::string& name);

// Empty when `block` equals the block of its source file, else what differs.
std::string compare_with_source(const EmbeddedBlock& block);

// Lines that must change to turn `from` into `to` (removed + added; a longest common subsequence
// of whole lines), counted from each text's first `#include <cuda.h>`: the spec comments above it
// are expected to differ.
int changed_code_lines(std::string_view from, std::string_view to);

}  // namespace ptxbench::solutions_test
