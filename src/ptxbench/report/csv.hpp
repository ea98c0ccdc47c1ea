// CSV as RFC 4180 writes it: fields separated by commas, records by CRLF or LF; a field with a
// comma, quote or line break is quoted and its quotes doubled. Reading reports the line of a
// malformed record (an unterminated quote, text after a closing quote).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::report {

using CsvRecord = std::vector<std::string>;

util::Expected<std::vector<CsvRecord>> parse_csv(std::string_view text);

std::string csv_field(std::string_view value);                 // quoted only when needed
std::string csv_line(const std::vector<std::string>& fields);  // ends with "\n"

}  // namespace ptxbench::report
