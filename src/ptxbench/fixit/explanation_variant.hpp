// Explanations are kept per variant: one row per (mined row, explainer, length bin), so
// explaining the same repairs again with another teacher or length adds rows instead of
// replacing them, and an export names the variant it took its explanations from (its folder is
// keyed by it: export/<recipe>/<key>/).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/fixit/rows.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::fixit {

struct ExplanationVariant {
  std::string explainer;
  std::string length_bin;
  // "<length>-<explainer>", the explainer's characters outside [A-Za-z0-9._-] as '_'.
  std::string key() const;
  auto operator<=>(const ExplanationVariant&) const = default;
};

// Which variant an export takes: empty fields match any.
struct ExplanationFilter {
  std::string explainer;
  std::string length_bin;
  bool matches(const ExplainedRow& row) const;
};

// The folder key of an export whose rows carry no explanation (nothing was explained yet).
inline constexpr const char* kUnexplainedKey = "unexplained";

// The one variant the filter leaves among the rows (nullopt when no row matches). Error: the
// filter leaves several, naming them and the flags that pick one.
util::Expected<std::optional<ExplanationVariant>> choose_variant(
    const std::vector<ExplainedRow>& rows, const ExplanationFilter& filter);

// The rows of one variant.
std::vector<ExplainedRow> rows_of_variant(const std::vector<ExplainedRow>& rows,
                                          const ExplanationVariant& variant);

// `before` with `fresh` merged in: a fresh row replaces the row of the same mined id, repair
// teacher, explainer and length bin; every other row is kept.
std::vector<ExplainedRow> merge_explained(std::vector<ExplainedRow> before,
                                          const std::vector<ExplainedRow>& fresh);

}  // namespace ptxbench::fixit
