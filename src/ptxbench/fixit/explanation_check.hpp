// What makes an explanation unusable as training reasoning: it quotes the fixed kernel instead
// of reasoning towards it, leaks markup tags or says it saw the answer, runs past the token
// budget, or misses the requested length bin.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::fixit {

struct LengthBin {
  std::string name;
  int min_words = 0;
  int max_words = 0;
};

// short 60-200 words, medium 150-500, long 400-1200.
const std::vector<LengthBin>& default_length_bins();
util::Expected<LengthBin> find_length_bin(std::string_view name);

struct ExplanationLimits {
  LengthBin bin;
  int token_budget = 2000;   // estimated tokens (bytes / 4)
  int max_shared_lines = 5;  // code lines shared with the fixed kernel
};

int count_words(std::string_view text);

// nullopt when acceptable, else why not (one sentence, sent back to the explainer).
std::optional<std::string> rejection_reason(std::string_view explanation,
                                            std::string_view fixed_code,
                                            const ExplanationLimits& limits);

}  // namespace ptxbench::fixit
