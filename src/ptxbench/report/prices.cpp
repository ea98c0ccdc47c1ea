#include "ptxbench/report/prices.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::report {
namespace {
using nlohmann::json;

util::Expected<TokenPrice> price_of(const json& j, const std::string& where) {
  if (!j.is_object()) return util::make_error(where + ": not an object");
  TokenPrice price;
  for (auto [key, target] : {std::pair{"input_usd_per_mtok", &price.input_usd_per_mtok},
                             std::pair{"output_usd_per_mtok", &price.output_usd_per_mtok}}) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number() || it->get<double>() < 0) {
      return util::make_error(fmt::format("{}.{}: a non-negative number is required", where, key));
    }
    *target = it->get<double>();
  }
  return price;
}

}  // namespace

util::Expected<Prices> Prices::parse(std::string_view json_text) {
  json document = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object()) {
    return util::make_error("prices: not a JSON object");
  }
  Prices prices;
  if (auto models = document.find("models"); models != document.end()) {
    if (!models->is_object()) return util::make_error("prices: models: not an object");
    for (const auto& [name, value] : models->items()) {
      auto price = price_of(value, "prices: models." + name);
      if (!price) return price.error();
      prices.models_.emplace(name, *price);
    }
  }
  if (auto fallback = document.find("default"); fallback != document.end()) {
    auto price = price_of(*fallback, "prices: default");
    if (!price) return price.error();
    prices.default_ = *price;
  }
  return prices;
}

util::Expected<Prices> Prices::load(const std::filesystem::path& path) {
  auto text = util::read_file(path);
  if (!text) return text.error();
  auto prices = parse(*text);
  if (!prices) return util::make_error(path.string() + ": " + prices.error().message);
  return prices;
}

const TokenPrice* Prices::find(std::string_view model) const {
  if (auto it = models_.find(model); it != models_.end()) return &it->second;
  return default_ ? &*default_ : nullptr;
}

std::optional<double> Prices::cost(std::string_view model, const TurnRecord& turn) const {
  if (turn.cost_usd) return turn.cost_usd;
  const TokenPrice* price = find(model);
  if (!price || (!turn.prompt_tokens && !turn.completion_tokens)) return std::nullopt;
  return (static_cast<double>(turn.prompt_tokens.value_or(0)) * price->input_usd_per_mtok +
          static_cast<double>(turn.completion_tokens.value_or(0)) * price->output_usd_per_mtok) /
         1e6;
}

}  // namespace ptxbench::report
