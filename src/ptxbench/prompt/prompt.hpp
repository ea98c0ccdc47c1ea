// A model's first two messages for one task, arch and context level, and a token estimate.
#pragma once
#include <cstddef>
#include <filesystem>
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

// Fails only when a context document of the level is missing.
util::Expected<Prompt> build_prompt(const task::Task& task, arch::Arch arch, ContextLevel level,
                                    const std::filesystem::path& context_dir);

// Rough token count: UTF-8 bytes / 4, rounded up. Tokenizers of current models give 3-4.5 bytes
// per token on English prose and code, so this is an estimate for budgeting, not a count.
inline std::size_t estimate_tokens(std::string_view text) {
  return (text.size() + 3) / 4;
}

}  // namespace ptxbench::prompt
