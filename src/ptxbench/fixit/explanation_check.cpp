#include "ptxbench/fixit/explanation_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "ptxbench/prompt/prompt.hpp"

namespace ptxbench::fixit {
namespace {

std::string trim(std::string_view text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Lines long enough to mean something when two texts share them.
std::set<std::string> code_lines(std::string_view code) {
  std::set<std::string> lines;
  std::istringstream in{std::string(code)};
  for (std::string line; std::getline(in, line);) {
    std::string t = trim(line);
    if (t.size() >= 16) lines.insert(t);
  }
  return lines;
}

}  // namespace

const std::vector<LengthBin>& default_length_bins() {
  static const std::vector<LengthBin> kBins{
      {"short", 60, 200}, {"medium", 150, 500}, {"long", 400, 1200}};
  return kBins;
}

util::Expected<LengthBin> find_length_bin(std::string_view name) {
  for (const auto& bin : default_length_bins())
    if (bin.name == name) return bin;
  return util::make_error(fmt::format("length bin '{}': expected short, medium or long", name));
}

int count_words(std::string_view text) {
  int words = 0;
  bool in_word = false;
  for (char c : text) {
    bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

namespace {

// <think>, </answer>, < code >, ... and chat-template tokens like <|im_end|>, in any case. A
// plain scan, not std::regex: an explanation can be long, and libstdc++'s matcher recurses per
// character.
bool has_markup_tag(std::string_view text) {
  static const std::vector<std::string_view> kNames{"thinking", "think",     "answer", "reasoning",
                                                    "solution", "reference", "code"};
  auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  for (auto open = text.find('<'); open != std::string_view::npos;
       open = text.find('<', open + 1)) {
    std::size_t at = open + 1;
    if (at < text.size() && text[at] == '|') {  // <|name|>
      std::size_t end = at + 1;
      while (end < text.size() &&
             (std::isalpha(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_'))
        ++end;
      if (end > at + 1 && text.substr(end, 2) == "|>") return true;
      continue;
    }
    if (at < text.size() && text[at] == '/') ++at;
    while (at < text.size() && is_space(text[at])) ++at;
    for (std::string_view name : kNames) {
      if (at + name.size() > text.size() || lower(text.substr(at, name.size())) != name) continue;
      std::size_t end = at + name.size();
      while (end < text.size() && is_space(text[end])) ++end;
      if (end < text.size() && text[end] == '>') return true;
    }
  }
  return false;
}

}  // namespace

std::optional<std::string> rejection_reason(std::string_view explanation,
                                            std::string_view fixed_code,
                                            const ExplanationLimits& limits) {
  std::string text = trim(explanation);
  if (text.empty()) return "the explanation is empty";
  if (has_markup_tag(text)) return "it contains markup tags; write plain prose";
  static const std::vector<std::string> kLeaks{"reference solution",     "the given fix",
                                               "provided solution",      "the answer i was given",
                                               "expected answer",        "i was shown the fix",
                                               "the fixed kernel above", "the solution provided"};
  std::string low = lower(text);
  for (const auto& leak : kLeaks) {
    if (low.find(leak) != std::string::npos)
      return fmt::format("it mentions seeing the answer (\"{}\"); reason as if finding the fix",
                         leak);
  }
  if (text.find("```") != std::string::npos)
    return "it contains a code block; the kernel follows the reasoning, do not quote it";
  std::set<std::string> fixed = code_lines(fixed_code);
  int shared = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) shared += fixed.contains(trim(line)) ? 1 : 0;
  if (shared > limits.max_shared_lines)
    return fmt::format("it quotes {} lines of the fixed kernel (at most {}); explain, do not copy",
                       shared, limits.max_shared_lines);
  auto tokens = static_cast<int>(prompt::estimate_tokens(text));
  if (tokens > limits.token_budget)
    return fmt::format("it is about {} tokens, over the budget of {}", tokens, limits.token_budget);
  int words = count_words(text);
  if (words < limits.bin.min_words || words > limits.bin.max_words)
    return fmt::format("it has {} words; the {} length asks for {} to {}", words, limits.bin.name,
                       limits.bin.min_words, limits.bin.max_words);
  return std::nullopt;
}

}  // namespace ptxbench::fixit
