#include "ptxbench/report/view/view_html.hpp"

#include <fmt/format.h>

#include <cctype>

#include "ptxbench/report/svg.hpp"
#include "ptxbench/report/view/code_view.hpp"

namespace ptxbench::report::view {

std::string item_page(std::string_view title, std::string_view back_href, std::string_view body) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; img-src data:\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{0}</title>\n<style>{1}</style>\n</head>\n<body>\n<main>\n"
      "<p class=\"back\"><a id=\"back\" href=\"{2}\">&larr; all items</a></p>\n"
      "<h1>{0}</h1>\n{3}</main>\n</body>\n</html>\n",
      xml_escape(title), style(), xml_escape(back_href), body);
}

std::string folded_text(std::string_view summary, std::string_view text, bool open,
                        std::string_view css_class) {
  return fmt::format("<details{}><summary>{}</summary><pre class=\"text{}{}\">{}</pre></details>\n",
                     open ? " open" : "", xml_escape(summary), css_class.empty() ? "" : " ",
                     xml_escape(css_class), xml_escape(text));
}

std::string code_block(std::string_view code) {
  return "<pre class=\"code\">" + highlight_code(code) + "</pre>\n";
}

std::string text_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows,
                       const std::vector<int>& numeric) {
  auto cls = [&numeric](std::size_t i) {
    return i < numeric.size() && numeric[i] != 0 ? " class=\"num\"" : "";
  };
  std::string out = "<div class=\"table-wrap\"><table>\n<thead><tr>";
  for (std::size_t i = 0; i < header.size(); ++i)
    out += fmt::format("<th{}>{}</th>", cls(i), xml_escape(header[i]));
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i)
      out += fmt::format("<td{}>{}</td>", cls(i), xml_escape(row[i]));
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

std::string verdict_badge(std::string_view verdict) {
  std::string cls;
  for (char c : verdict)
    cls += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_') ? c : '-';
  return fmt::format("<span class=\"verdict v-{}\">{}</span>", cls, xml_escape(verdict));
}

std::string number_text(std::optional<double> value, int decimals) {
  return value ? fmt::format("{:.{}f}", *value, decimals) : "–";
}

std::string count_text(std::optional<long long> value) {
  return value ? fmt::format("{}", *value) : "–";
}

std::string diff_block(std::string_view summary_prefix, std::string_view before,
                       std::string_view after, bool open) {
  const LineDiff diff = diff_lines(before, after);
  if (diff.too_large) {
    return fmt::format("<p class=\"note\">{}: too long to diff here.</p>\n",
                       xml_escape(summary_prefix));
  }
  if (diff.added == 0 && diff.removed == 0) {
    return fmt::format("<p class=\"note\">{}: identical.</p>\n", xml_escape(summary_prefix));
  }
  return fmt::format(
      "<details class=\"diff\"{}><summary>{}: {} line(s) added, {} removed</summary>"
      "<pre class=\"diff\">{}</pre></details>\n",
      open ? " open" : "", xml_escape(summary_prefix), diff.added, diff.removed, diff_html(diff));
}

}  // namespace ptxbench::report::view
