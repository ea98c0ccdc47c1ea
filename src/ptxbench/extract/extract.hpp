// Stage 1: the code in a model's response. A file that is already source (.cu/.cuh/.cpp) is
// taken whole; Markdown gives its last fenced code block.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ptxbench::extract {

// The last complete fenced block (``` or ~~~, any info string); an unterminated last fence
// takes the text to the end. CRLF is normalised. nullopt when there is no code.
std::optional<std::string> extract_code(std::string_view response);

}  // namespace ptxbench::extract
