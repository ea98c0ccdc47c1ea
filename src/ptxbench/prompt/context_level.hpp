// Context levels: how much architecture knowledge the system prompt carries (the ablation of
// DESIGN.md). Each level adds documents from context/<arch>/ to the one below it.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::prompt {

// kRetrieval carries no documents: `none` plus the most similar verified repairs of a Fixit
// folder, added through a ContextHook (prompt.hpp, fixit/retrieve.hpp).
enum class ContextLevel { kNone, kIsa, kGuide, kExamples, kRetrieval };

std::string_view to_string(ContextLevel level);  // "none", "isa", "guide", "examples", "retrieval"
std::optional<ContextLevel> parse_context_level(std::string_view name);
// The document levels (retrieval is not one: it needs a Fixit folder).
const std::vector<ContextLevel>& all_context_levels();

// The document names a level includes, in prompt order: none -> {}, isa -> {isa},
// guide -> {isa, guide}, examples -> {isa, guide, examples}.
std::vector<std::string> documents_of(ContextLevel level);

// $PTXBENCH_HOME/context when set, else the source tree's context/.
std::filesystem::path default_context_dir();

// context_dir/<arch>/<document>.md
std::filesystem::path document_path(const std::filesystem::path& context_dir, arch::Arch arch,
                                    std::string_view document);

// The level's documents for the arch, concatenated in order (empty for `none`). A missing or
// unreadable document is an error naming the file.
util::Expected<std::string> load_context(const std::filesystem::path& context_dir, arch::Arch arch,
                                         ContextLevel level);

}  // namespace ptxbench::prompt
