// Token prices per model, for the cost columns. File format (JSON):
//   {"models": {"<model>": {"input_usd_per_mtok": 3.0, "output_usd_per_mtok": 15.0}},
//    "default": {"input_usd_per_mtok": ..., "output_usd_per_mtok": ...}}   ("default" optional)
// Completion tokens are priced as output; reasoning tokens are taken to be part of them, as
// OpenAI-compatible APIs report them.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ptxbench/report/trajectory_record.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::report {

struct TokenPrice {
  double input_usd_per_mtok = 0;
  double output_usd_per_mtok = 0;
};

class Prices {
 public:
  static util::Expected<Prices> parse(std::string_view json_text);
  static util::Expected<Prices> load(const std::filesystem::path& path);

  bool empty() const { return models_.empty() && !default_; }
  const TokenPrice* find(std::string_view model) const;
  // The recorded cost of the turn when there is one, else its tokens at the model's price.
  std::optional<double> cost(std::string_view model, const TurnRecord& turn) const;

 private:
  std::map<std::string, TokenPrice, std::less<>> models_;
  std::optional<TokenPrice> default_;
};

}  // namespace ptxbench::report
