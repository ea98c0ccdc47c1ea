// Code as the trajectory viewer shows it: CUDA/PTX source with its tokens marked for colour, and
// a line diff of two versions. Every byte of the input is escaped: model text is shown, never
// interpreted by the browser.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench::report::view {

// HTML for the inside of a <pre>: comments, strings (PTX in asm()), preprocessor lines, keywords
// and numbers wrapped in <span class="c|s|p|k|n">; everything escaped.
std::string highlight_code(std::string_view code);

struct DiffLine {
  enum class Kind { kSame, kAdded, kRemoved };
  Kind kind = Kind::kSame;
  std::string text;
};

// The shortest edit script between the lines of a and b (longest common subsequence). Inputs
// longer than max_lines each give nullopt-like behaviour: an empty result and too_large set.
struct LineDiff {
  std::vector<DiffLine> lines;
  bool too_large = false;
  int added = 0;
  int removed = 0;
};
LineDiff diff_lines(std::string_view a, std::string_view b, std::size_t max_lines = 3000);

// A unified view of the diff for a <pre>: changed lines with `context` unchanged lines around
// them, "@@" separators between hunks, everything escaped.
std::string diff_html(const LineDiff& diff, int context = 3);

}  // namespace ptxbench::report::view
