// Fenced code blocks of a Markdown context document and the compile marker on their info string.
// Convention (context/README.md): a block whose info string is `cuda compile` (or `cpp compile`)
// is one complete translation unit that must compile for the document's arch; an optional
// `sass=OP1,OP2` lists SASS opcodes the compiled code must contain.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench::context_docs {

struct FencedBlock {
  std::string info;        // the info string after the opening fence, trimmed
  std::string code;        // the lines between the fences, each ending in '\n'
  int first_line = 0;      // 1-based line of the opening fence
  bool terminated = true;  // false: the document ended inside the block
};

// Blocks opened by ``` or ~~~ (three or more, up to three spaces of indentation) and closed by a
// fence of the same character at least as long. CRLF is normalised.
std::vector<FencedBlock> fenced_blocks(std::string_view markdown);

struct CompileMarker {
  std::string language;              // "cuda" or "cpp"
  bool compile = false;              // the block must compile
  std::vector<std::string> sass;     // opcodes (prefixes up to a '.') that must appear
  std::vector<std::string> unknown;  // attribute words that are not part of the convention
};

// The marker of a C++/CUDA block; nullopt for any other language (text, ptx, bash, ...).
std::optional<CompileMarker> parse_compile_marker(std::string_view info);

// True when `disassembly` has an instruction whose opcode is `opcode` or starts with `opcode.`
// (e.g. "HGMMA" matches "HGMMA.64x128x16.F32.BF16" but not "QGMMA" or "HGMMAX").
bool has_opcode(std::string_view disassembly, std::string_view opcode);

}  // namespace ptxbench::context_docs
