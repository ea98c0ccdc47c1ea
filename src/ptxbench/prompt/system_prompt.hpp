// The system prompt: the model's role, the response format, the candidate ABI with a complete
// example, the target arch, and the documents of the context level.
#pragma once
#include <string>
#include <string_view>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/prompt/context_level.hpp"

namespace ptxbench::prompt {

// `context` is the level's documents as load_context returns them (empty for `none`).
std::string build_system_prompt(arch::Arch arch, ContextLevel level, std::string_view context);

}  // namespace ptxbench::prompt
