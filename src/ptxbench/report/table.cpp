#include "ptxbench/report/table.hpp"

#include <fmt/format.h>

#include <cmath>

#include "ptxbench/report/csv.hpp"
#include "ptxbench/report/svg.hpp"
#include "ptxbench/util/check.hpp"
#include "ptxbench/util/generated_text.hpp"

namespace ptxbench::report {
namespace {
using nlohmann::json;

constexpr std::string_view kDash = "\u2013";

bool fits(const Cell& cell, ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kText:
      return cell.kind() == Cell::Kind::kText;
    case ColumnKind::kInteger:
      return cell.kind() == Cell::Kind::kInteger;
    case ColumnKind::kNumber:
      return cell.kind() == Cell::Kind::kNumber;
    case ColumnKind::kMeasure:
      return cell.kind() == Cell::Kind::kMeasure;
  }
  return false;
}

std::string number(double value, int decimals) {
  if (!std::isfinite(value)) return std::string(kDash);
  return fmt::format("{:.{}f}", value, decimals);
}

std::string exact(double value) {
  return std::isfinite(value) ? fmt::format("{}", value) : "";
}

// Export fields of one cell, in export_header() order.
std::vector<std::string> export_fields(const Cell& cell, const Column& column) {
  if (column.kind == ColumnKind::kMeasure) {
    const Measure* m = cell.measure();
    if (!m) return {"", "", "", "", ""};
    return {m->value ? exact(*m->value) : "", m->interval ? exact(m->interval->lo) : "",
            m->interval ? exact(m->interval->hi) : "", m->k ? std::to_string(*m->k) : "",
            std::to_string(m->n)};
  }
  if (const auto* text = cell.text()) return {*text};
  if (const auto* integer = cell.integer()) return {std::to_string(*integer)};
  if (const auto* real = cell.number()) return {exact(*real)};
  return {""};
}

json json_number(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return nullptr;
  return *value;
}

void add_json_fields(json& row, const Cell& cell, const Column& column) {
  if (column.kind == ColumnKind::kMeasure) {
    const Measure* m = cell.measure();
    row[column.name] = m ? json_number(m->value) : json(nullptr);
    row[column.name + "_lo"] = m && m->interval ? json_number(m->interval->lo) : json(nullptr);
    row[column.name + "_hi"] = m && m->interval ? json_number(m->interval->hi) : json(nullptr);
    row[column.name + "_k"] = m && m->k ? json(*m->k) : json(nullptr);
    row[column.name + "_n"] = m ? json(m->n) : json(nullptr);
    return;
  }
  if (const auto* text = cell.text()) {
    row[column.name] = *text;
  } else if (const auto* integer = cell.integer()) {
    row[column.name] = *integer;
  } else if (const auto* real = cell.number()) {
    row[column.name] = json_number(*real);
  } else {
    row[column.name] = nullptr;
  }
}

std::string_view kind_name(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kText:
      return "text";
    case ColumnKind::kInteger:
      return "integer";
    case ColumnKind::kNumber:
      return "number";
    case ColumnKind::kMeasure:
      return "measure";
  }
  return "text";
}

// A cell's text: one line (newlines as spaces), '|' and HTML escaped (util::markdown_inline).
std::string markdown_escape(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return util::markdown_inline(text);
}

bool right_aligned(ColumnKind kind) {
  return kind != ColumnKind::kText;
}

}  // namespace

Measure measure_of(const Proportion& p) {
  return {.value = p.rate(), .interval = p.interval(), .k = p.k, .n = p.n};
}

Measure measure_of(const Proportion& p, int not_measured) {
  Measure m = measure_of(p);
  if (p.n == 0 && not_measured > 0) m.absent = "not measured";
  return m;
}

Measure measure_of(const Estimate& e) {
  return {.value = e.value, .interval = e.interval, .n = e.n};
}

Measure measure_of(const Difference& d, int n) {
  return {.value = d.value, .interval = d.interval, .n = n};
}

void Table::add_row(std::vector<Cell> row) {
  PTXBENCH_CHECK(row.size() == columns.size(), fmt::format("{}: row of {} cells for {} columns",
                                                           name, row.size(), columns.size()));
  for (std::size_t i = 0; i < row.size(); ++i) {
    PTXBENCH_CHECK(
        row[i].kind() == Cell::Kind::kEmpty || fits(row[i], columns[i].kind),
        fmt::format("{}: column {} holds a value of another kind", name, columns[i].name));
  }
  rows.push_back(std::move(row));
}

std::vector<std::string> export_header(const Table& table) {
  std::vector<std::string> header;
  for (const auto& column : table.columns) {
    header.push_back(column.name);
    if (column.kind == ColumnKind::kMeasure) {
      for (const char* suffix : {"_lo", "_hi", "_k", "_n"}) header.push_back(column.name + suffix);
    }
  }
  return header;
}

std::string to_csv(const Table& table) {
  std::string out = csv_line(export_header(table));
  for (const auto& row : table.rows) {
    std::vector<std::string> fields;
    for (std::size_t i = 0; i < row.size(); ++i) {
      auto cell_fields = export_fields(row[i], table.columns[i]);
      fields.insert(fields.end(), cell_fields.begin(), cell_fields.end());
    }
    out += csv_line(fields);
  }
  return out;
}

json to_json(const Table& table) {
  json columns = json::array();
  for (const auto& column : table.columns) {
    columns.push_back({{"name", column.name},
                       {"kind", std::string(kind_name(column.kind))},
                       {"description", column.description}});
  }
  json rows = json::array();
  for (const auto& row : table.rows) {
    json object = json::object();
    for (std::size_t i = 0; i < row.size(); ++i) add_json_fields(object, row[i], table.columns[i]);
    rows.push_back(std::move(object));
  }
  return {{"name", table.name},
          {"title", table.title},
          {"description", table.description},
          {"columns", std::move(columns)},
          {"rows", std::move(rows)}};
}

std::string display(const Cell& cell, const Column& column) {
  if (const auto* text = cell.text()) return *text;
  if (const auto* integer = cell.integer()) return std::to_string(*integer);
  if (const auto* real = cell.number()) return number(*real, column.decimals);
  if (const auto* m = cell.measure()) {
    if (!m->value) return m->absent.empty() ? fmt::format("{} (n={})", kDash, m->n) : m->absent;
    std::string out = number(*m->value, column.decimals);
    if (m->interval) {
      out += fmt::format(" [{}, {}]", number(m->interval->lo, column.decimals),
                         number(m->interval->hi, column.decimals));
    }
    out += m->k ? fmt::format(" {}/{}", *m->k, m->n) : fmt::format(" n={}", m->n);
    return out;
  }
  return std::string(kDash);
}

std::string to_markdown(const Table& table) {
  std::string out;
  out += "|";
  for (const auto& column : table.columns) out += " " + column.name + " |";
  out += "\n|";
  for (const auto& column : table.columns) out += right_aligned(column.kind) ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : table.rows) {
    out += "|";
    for (std::size_t i = 0; i < row.size(); ++i) {
      out += " " + markdown_escape(display(row[i], table.columns[i])) + " |";
    }
    out += "\n";
  }
  if (table.rows.empty()) out += "\n_No rows._\n";
  return out;
}

namespace {
std::string html_cell(const Cell& cell, const Column& column) {
  const auto* m = cell.measure();
  if (!m || !m->value) return xml_escape(display(cell, column));
  std::string out = fmt::format("<span class=\"v\">{}</span>", number(*m->value, column.decimals));
  if (m->interval) {
    out +=
        fmt::format(" <span class=\"ci\">[{}, {}]</span>", number(m->interval->lo, column.decimals),
                    number(m->interval->hi, column.decimals));
  }
  out += fmt::format(" <span class=\"n\">{}</span>",
                     m->k ? fmt::format("{}/{}", *m->k, m->n) : fmt::format("n={}", m->n));
  return out;
}
}  // namespace

std::string to_html(const Table& table) {
  return to_html(table, nullptr);
}

std::string to_html(const Table& table, const CellLink& link) {
  std::string out = "<div class=\"table-wrap\"><table>\n<thead><tr>";
  for (const auto& column : table.columns) {
    out += fmt::format("<th title=\"{}\"{}>{}</th>", xml_escape(column.description),
                       right_aligned(column.kind) ? " class=\"num\"" : "", xml_escape(column.name));
  }
  out += "</tr></thead>\n<tbody>\n";
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      std::string cell = html_cell(row[i], table.columns[i]);
      const std::string href =
          link && row[i].kind() != Cell::Kind::kEmpty ? link(r, i) : std::string();
      if (!href.empty()) {
        cell = fmt::format("<a class=\"cell\" href=\"{}\">{}</a>", xml_escape(href), cell);
      }
      out += fmt::format("<td{}>{}</td>",
                         right_aligned(table.columns[i].kind) ? " class=\"num\"" : "", cell);
    }
    out += "</tr>\n";
  }
  if (table.rows.empty()) {
    out += fmt::format("<tr><td colspan=\"{}\" class=\"empty\">No rows.</td></tr>\n",
                       table.columns.size());
  }
  out += "</tbody></table></div>\n";
  return out;
}

}  // namespace ptxbench::report
