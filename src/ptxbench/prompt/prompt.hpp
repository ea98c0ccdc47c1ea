// A model's first two messages for one task, arch and context level, and a token estimate.
#pragma once
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/prompt/context_level.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::prompt {

struct Prompt {
  std::string system;  // role, format, ABI, arch, context documents
  std::string task;    // the first user message
};

// The text a level without documents (retrieval) adds to the system prompt for a task and arch.
using ContextHook = std::function<util::Expected<std::string>(const task::Task&, arch::Arch)>;

// Fails when a context document of the level is missing, or the retrieval level has no hook
// (or its hook fails).
util::Expected<Prompt> build_prompt(const task::Task& task, arch::Arch arch, ContextLevel level,
                                    const std::filesystem::path& context_dir,
                                    const ContextHook& hook = {});

// Rough token count: UTF-8 bytes / 4, rounded up. Tokenizers of current models give 3-4.5 bytes
// per token on English prose and code, so this is an estimate for budgeting, not a count.
inline std::size_t estimate_tokens(std::string_view text) {
  return (text.size() + 3) / 4;
}

}  // namespace ptxbench::prompt
