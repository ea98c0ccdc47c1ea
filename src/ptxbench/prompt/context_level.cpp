#include "ptxbench/prompt/context_level.hpp"

#include <array>
#include <cstdlib>

#include "ptxbench/config.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::prompt {
namespace {
constexpr std::array<std::string_view, 5> kLevelNames{"none", "isa", "guide", "examples",
                                                      "retrieval"};
constexpr std::array<std::string_view, 3> kDocuments{"isa", "guide", "examples"};
}  // namespace

std::string_view to_string(ContextLevel level) {
  return kLevelNames.at(static_cast<std::size_t>(level));
}

std::optional<ContextLevel> parse_context_level(std::string_view name) {
  for (ContextLevel level : all_context_levels()) {
    if (to_string(level) == name) return level;
  }
  if (name == to_string(ContextLevel::kRetrieval)) return ContextLevel::kRetrieval;
  return std::nullopt;
}

const std::vector<ContextLevel>& all_context_levels() {
  static const std::vector<ContextLevel> kAll{ContextLevel::kNone, ContextLevel::kIsa,
                                              ContextLevel::kGuide, ContextLevel::kExamples};
  return kAll;
}

std::vector<std::string> documents_of(ContextLevel level) {
  if (level == ContextLevel::kRetrieval) return {};
  // Each level is the one below it plus one document, so the level's index is the count.
  auto count = static_cast<std::size_t>(level);
  return {kDocuments.begin(), kDocuments.begin() + static_cast<std::ptrdiff_t>(count)};
}

std::filesystem::path default_context_dir() {
  if (const char* home = std::getenv("PTXBENCH_HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / "context";
  }
  return config::source_path("context");
}

std::filesystem::path document_path(const std::filesystem::path& context_dir, arch::Arch arch,
                                    std::string_view document) {
  return context_dir / std::string(arch::to_string(arch)) / (std::string(document) + ".md");
}

util::Expected<std::string> load_context(const std::filesystem::path& context_dir, arch::Arch arch,
                                         ContextLevel level) {
  std::string text;
  for (const auto& document : documents_of(level)) {
    auto content = util::read_file(document_path(context_dir, arch, document));
    if (!content) return content.error();
    if (!text.empty()) text += "\n\n";
    text += *content;
    while (!text.empty() && text.back() == '\n') text.pop_back();
  }
  return text;
}

}  // namespace ptxbench::prompt
