#include "ptxbench/fixit/explanation_variant.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

namespace ptxbench::fixit {
namespace {

ExplanationVariant variant_of(const ExplainedRow& row) {
  return {.explainer = row.explainer, .length_bin = row.length_bin};
}

}  // namespace

std::string ExplanationVariant::key() const {
  std::string out = length_bin + "-";
  for (char c : explainer) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
    out += plain ? c : '_';
  }
  return out;
}

bool ExplanationFilter::matches(const ExplainedRow& row) const {
  return (explainer.empty() || row.explainer == explainer) &&
         (length_bin.empty() || row.length_bin == length_bin);
}

util::Expected<std::optional<ExplanationVariant>> choose_variant(
    const std::vector<ExplainedRow>& rows, const ExplanationFilter& filter) {
  std::set<ExplanationVariant> found;
  for (const auto& row : rows)
    if (filter.matches(row)) found.insert(variant_of(row));
  if (found.empty()) return std::optional<ExplanationVariant>{};
  if (found.size() == 1) return std::optional<ExplanationVariant>{*found.begin()};
  std::vector<std::string> names;
  for (const auto& v : found) names.push_back(fmt::format("{} ({})", v.explainer, v.length_bin));
  return util::Error{fmt::format(
      "explained.jsonl holds explanations of {} variants: {}; pick one with --length and "
      "--explainer-name",
      found.size(), fmt::join(names, ", "))};
}

std::vector<ExplainedRow> rows_of_variant(const std::vector<ExplainedRow>& rows,
                                          const ExplanationVariant& variant) {
  std::vector<ExplainedRow> out;
  for (const auto& row : rows)
    if (variant_of(row) == variant) out.push_back(row);
  return out;
}

std::vector<ExplainedRow> merge_explained(std::vector<ExplainedRow> before,
                                          const std::vector<ExplainedRow>& fresh) {
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  auto key = [](const ExplainedRow& row) {
    return Key{row.mined_id, row.teacher, row.explainer, row.length_bin};
  };
  std::map<Key, std::size_t> where;
  for (std::size_t i = 0; i < before.size(); ++i) where[key(before[i])] = i;
  for (const auto& row : fresh) {
    if (auto it = where.find(key(row)); it != where.end())
      before[it->second] = row;
    else
      before.push_back(row);
  }
  return before;
}

}  // namespace ptxbench::fixit
