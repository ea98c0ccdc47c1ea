// One table of the report, rendered four ways: Markdown (summary.md), HTML (report.html), CSV
// and JSON (tables/). A measure cell (a rate or an estimate with its interval) is one column on
// the page and five in the exports: X, X_lo, X_hi, X_k, X_n.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/report/statistics.hpp"

namespace ptxbench::report {

enum class ColumnKind { kText, kInteger, kNumber, kMeasure };

struct Column {
  std::string name;  // snake_case, the export's column name (prefix for a measure)
  ColumnKind kind = ColumnKind::kText;
  std::string description;  // what it means: shown as the header's tooltip and in report.json
  int decimals = 2;         // on the page; exports keep full precision
};

// A value with its 95% interval: a rate (k of n) or an estimate from n observations.
struct Measure {
  std::optional<double> value;
  std::optional<Interval> interval;
  std::optional<int> k;  // successes, for a rate
  int n = 0;
  std::string absent;  // shown instead of the value when there is none, e.g. "not measured"
};
Measure measure_of(const Proportion& proportion);
// A rate of the measured trajectories; "not measured" when none of them was.
Measure measure_of(const Proportion& proportion, int not_measured);
Measure measure_of(const Estimate& estimate);
Measure measure_of(const Difference& difference, int n);

// One cell: empty, text, an integer, a number or a measure. A plain class rather than a
// std::variant: GCC 12 reports false maybe-uninitialized errors on variants holding strings.
class Cell {
 public:
  enum class Kind { kEmpty, kText, kInteger, kNumber, kMeasure };
  // Implicit on purpose: rows are written as brace lists of values.
  Cell() = default;
  Cell(std::string text) : kind_(Kind::kText), text_(std::move(text)) {}  // NOLINT
  Cell(const char* text) : Cell(std::string(text)) {}                     // NOLINT
  Cell(std::int64_t value) : kind_(Kind::kInteger), integer_(value) {}    // NOLINT
  Cell(double value) : kind_(Kind::kNumber), number_(value) {}            // NOLINT
  Cell(Measure value) : kind_(Kind::kMeasure), measure_(value) {}         // NOLINT

  Kind kind() const { return kind_; }
  const std::string* text() const { return kind_ == Kind::kText ? &text_ : nullptr; }
  const std::int64_t* integer() const { return kind_ == Kind::kInteger ? &integer_ : nullptr; }
  const double* number() const { return kind_ == Kind::kNumber ? &number_ : nullptr; }
  const Measure* measure() const { return kind_ == Kind::kMeasure ? &measure_ : nullptr; }

 private:
  Kind kind_ = Kind::kEmpty;
  std::string text_;
  std::int64_t integer_ = 0;
  double number_ = 0;
  Measure measure_;
};

struct Table {
  std::string name;  // file stem: tables/<name>.csv, tables/<name>.json
  std::string title;
  std::string description;  // one paragraph: what a row is, what is pooled
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  bool on_page = true;  // false: too long to read; exported only

  // Checks that the row matches the columns (count and kind); an empty cell fits any column.
  void add_row(std::vector<Cell> row);
};

std::vector<std::string> export_header(const Table& table);
std::string to_csv(const Table& table);
nlohmann::json to_json(const Table& table);  // {"name", "title", "description", "columns", "rows"}
std::string to_markdown(const Table& table);
std::string to_html(const Table& table);
// With a link per cell (relative URL, "" for none): a non-empty cell links to what it counts.
using CellLink = std::function<std::string(std::size_t row, std::size_t column)>;
std::string to_html(const Table& table, const CellLink& link);

// The page form of one cell: "0.75 [0.47, 0.91] 9/12", "1.23 [1.01, 1.40] n=7", "–".
std::string display(const Cell& cell, const Column& column);

}  // namespace ptxbench::report
