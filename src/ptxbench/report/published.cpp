#include "ptxbench/report/published.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <tuple>

#include "ptxbench/report/csv.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::report {
namespace {
namespace fs = std::filesystem;

struct Location {
  const fs::path& file;
  std::size_t row;  // 1-based data row
};

std::string where(const Location& at, std::string_view column) {
  return fmt::format("{}: row {}: {}", at.file.string(), at.row, column);
}

util::Expected<int> parse_int(std::string_view text, const Location& at, std::string_view column) {
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) {
    return util::make_error(where(at, column) + ": '" + std::string(text) +
                            "' is not a non-negative integer");
  }
  return value;
}

util::Expected<double> parse_double(std::string_view text, const Location& at,
                                    std::string_view column) {
  const std::string copy(text);
  char* end = nullptr;
  const double value = copy.empty() ? NAN : std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value)) {
    return util::make_error(where(at, column) + ": '" + copy + "' is not a number");
  }
  return value;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string last_component(std::string_view path) {
  while (path.ends_with('/')) path.remove_suffix(1);
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

std::string our_task_name(std::string_view definition) {
  constexpr std::string_view kTheirs = "mha_with_lse_";
  constexpr std::string_view kOurs = "mha_fwd_lse_";
  if (definition.starts_with(kTheirs)) {
    return std::string(kOurs) + std::string(definition.substr(kTheirs.size()));
  }
  return std::string(definition);
}

util::Expected<std::vector<PublishedRow>> parse_published(std::string_view csv_text,
                                                          const fs::path& path) {
  auto records = parse_csv(csv_text);
  if (!records) return util::make_error(path.string() + ": " + records.error().message);
  if (records->empty()) return util::make_error(path.string() + ": empty file");
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < records->front().size(); ++i) index[records->front()[i]] = i;
  for (const char* required : {"model", "arch", "definition", "turn_limit", "n_trajectories"}) {
    if (!index.contains(required)) {
      return util::make_error(fmt::format("{}: no column '{}'", path.string(), required));
    }
  }
  const bool has_correct = index.contains("correct");
  const bool has_arch = index.contains("correct_with_arch");
  const bool has_speedup = index.contains("best_speedup");
  if (!has_correct && !has_arch && !has_speedup) {
    return util::make_error(path.string() +
                            ": none of the columns correct, correct_with_arch, best_speedup");
  }
  std::vector<PublishedRow> rows;
  for (std::size_t r = 1; r < records->size(); ++r) {
    const auto& record = (*records)[r];
    const Location at{path, r};
    if (record.size() != records->front().size()) {
      return util::make_error(fmt::format("{}: row {}: {} fields, the header has {}", path.string(),
                                          r, record.size(), records->front().size()));
    }
    auto text = [&](const char* column) -> const std::string& { return record[index.at(column)]; };
    PublishedRow row{
        .model = text("model"),
        .arch = lower(text("arch")),
        .task = our_task_name(text("definition")),
        .definition = text("definition"),
        .experiment = index.contains("exp_dir") ? last_component(text("exp_dir")) : ""};
    auto turn_limit = parse_int(text("turn_limit"), at, "turn_limit");
    if (!turn_limit) return turn_limit.error();
    row.turn_limit = *turn_limit;
    auto n = parse_int(text("n_trajectories"), at, "n_trajectories");
    if (!n) return n.error();
    row.trajectories = *n;
    for (auto [column, present, target] :
         {std::tuple{"correct", has_correct, &row.correct},
          std::tuple{"correct_with_arch", has_arch, &row.correct_with_arch}}) {
      if (!present) continue;
      auto k = parse_int(text(column), at, column);
      if (!k) return k.error();
      if (*k > row.trajectories) {
        return util::make_error(where(at, column) + ": more than n_trajectories");
      }
      *target = *k;
    }
    if (has_speedup) {
      auto speedup = parse_double(text("best_speedup"), at, "best_speedup");
      if (!speedup) return speedup.error();
      row.best_speedup = *speedup;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

util::Expected<std::vector<PublishedRow>> read_published(const std::vector<fs::path>& files) {
  using Key = std::tuple<std::string, std::string, std::string, std::string, int>;
  std::map<Key, PublishedRow> merged;
  std::vector<Key> order;
  for (const auto& file : files) {
    auto text = util::read_file(file);
    if (!text) return text.error();
    auto rows = parse_published(*text, file);
    if (!rows) return rows.error();
    for (auto& row : *rows) {
      Key key{row.model, row.arch, row.definition, row.experiment, row.turn_limit};
      auto [it, inserted] = merged.try_emplace(key, row);
      if (inserted) {
        order.push_back(key);
        continue;
      }
      PublishedRow& into = it->second;
      if (into.trajectories != row.trajectories) {
        return util::make_error(fmt::format(
            "{}: {} / {} / {} / turn limit {}: n_trajectories {} differs from {} in another file",
            file.string(), row.model, row.arch, row.definition, row.turn_limit, row.trajectories,
            into.trajectories));
      }
      if (row.correct) into.correct = row.correct;
      if (row.correct_with_arch) into.correct_with_arch = row.correct_with_arch;
      if (row.best_speedup) into.best_speedup = row.best_speedup;
    }
  }
  std::vector<PublishedRow> rows;
  rows.reserve(order.size());
  for (const auto& key : order) rows.push_back(std::move(merged.at(key)));
  return rows;
}

}  // namespace ptxbench::report
