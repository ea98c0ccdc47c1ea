#include "ptxbench/report/csv.hpp"

#include <fmt/format.h>

namespace ptxbench::report {

util::Expected<std::vector<CsvRecord>> parse_csv(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a spreadsheet's byte-order mark
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string field;
  bool quoted = false;       // inside a quoted field
  bool after_quote = false;  // a quoted field just closed: only a separator may follow
  bool record_started = false;
  int line = 1;
  int record_line = 1;
  auto end_field = [&] {
    record.push_back(std::move(field));
    field.clear();
    after_quote = false;
  };
  auto end_record = [&] {
    end_field();
    records.push_back(std::move(record));
    record.clear();
    record_started = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
          after_quote = true;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == ',') {
      record_started = true;
      end_field();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (record_started) end_record();
      ++line;
      record_line = line;
    } else if (after_quote) {
      return util::make_error(fmt::format("line {}: text after a closing quote", line));
    } else if (c == '"') {
      if (!field.empty()) {
        return util::make_error(fmt::format("line {}: quote inside an unquoted field", line));
      }
      quoted = true;
      record_started = true;
    } else {
      field += c;
      record_started = true;
    }
  }
  if (quoted)
    return util::make_error(fmt::format("line {}: unterminated quoted field", record_line));
  if (record_started) end_record();
  return records;
}

std::string csv_field(std::string_view value) {
  if (value.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(value);
  std::string out = "\"";
  for (char c : value) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += csv_field(fields[i]);
  }
  out += '\n';
  return out;
}

}  // namespace ptxbench::report
