// Column and cell helpers shared by the table builders (tables.cpp, usage_tables.cpp,
// published_tables.cpp): the key columns every metric table starts with, and short makers.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/report/group_key.hpp"
#include "ptxbench/report/table.hpp"

namespace ptxbench::report::columns {

inline Column text(std::string name, std::string description) {
  return {
      .name = std::move(name), .kind = ColumnKind::kText, .description = std::move(description)};
}
inline Column integer(std::string name, std::string description) {
  return {
      .name = std::move(name), .kind = ColumnKind::kInteger, .description = std::move(description)};
}
inline Column number(std::string name, std::string description, int decimals = 2) {
  return {.name = std::move(name),
          .kind = ColumnKind::kNumber,
          .description = std::move(description),
          .decimals = decimals};
}
inline Column measure(std::string name, std::string description, int decimals = 2) {
  return {.name = std::move(name),
          .kind = ColumnKind::kMeasure,
          .description = std::move(description),
          .decimals = decimals};
}

inline std::vector<Column> key_columns() {
  return {text("run", "the run the trajectories came from"),
          text("model", "model name as the run recorded it"),
          text("task", "task name; 'all' pools the tasks of the split"),
          text("arch", "target architecture"),
          text("context", "context level of the system prompt"),
          text("split", "train or heldout (sizes and variants kept out of training)")};
}

inline std::string split_name(const std::string& split) {
  return split.empty() ? "unknown" : split;
}

inline std::vector<Cell> key_cells(const GroupKey& key) {
  return {key.run, key.model, key.task, key.arch, key.context, split_name(key.split)};
}

template <class... Columns>
std::vector<Column> with_key(Columns... columns) {
  auto all = key_columns();
  (all.push_back(std::move(columns)), ...);
  return all;
}

inline void append(std::vector<Cell>& row, std::initializer_list<Cell> cells) {
  row.insert(row.end(), cells.begin(), cells.end());
}

inline Cell optional_number(std::optional<double> value) {
  if (!value) return Cell();
  return *value;
}

inline std::int64_t count(std::size_t n) {
  return static_cast<std::int64_t>(n);
}

inline std::string threshold_name(double p) {
  std::string s = fmt::format("{}", p);
  for (auto& c : s) {
    if (c == '.') c = '_';
  }
  return "fast_" + s;
}

}  // namespace ptxbench::report::columns
