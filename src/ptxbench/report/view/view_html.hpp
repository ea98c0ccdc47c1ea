// Pieces shared by the viewer's pages (trajectory pages, Fixit row pages, the index): the page
// shell and small HTML builders. Every text argument is escaped here; callers pass raw text.
// Item pages carry no script and a Content-Security-Policy that forbids any, so a model's reply
// holding <script> or markup is shown as text and could not run even if escaping failed.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench::report::view {

// A whole item page. body is HTML the caller built with the helpers below.
std::string item_page(std::string_view title, std::string_view back_href, std::string_view body);

// <details><summary>summary</summary><pre>text</pre></details>, open when asked.
std::string folded_text(std::string_view summary, std::string_view text, bool open = false,
                        std::string_view css_class = "");
// <pre class="code"> with the code highlighted (code_view.hpp).
std::string code_block(std::string_view code);
// A table of text cells (all escaped); header names as given; numeric[i] != 0 right-aligns
// column i.
std::string text_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows,
                       const std::vector<int>& numeric = {});
// <span class="verdict v-PASSED">PASSED</span>
std::string verdict_badge(std::string_view verdict);
// "3.1416" style numbers; "–" when absent.
std::string number_text(std::optional<double> value, int decimals = 3);
std::string count_text(std::optional<long long> value);
// The diff of two versions of code as a folded block ("12 lines added, 3 removed").
std::string diff_block(std::string_view summary_prefix, std::string_view before,
                       std::string_view after, bool open = false);

// The viewer's CSS (inline in every page: no file is fetched), and the index's script.
std::string_view style();
std::string_view index_script();

}  // namespace ptxbench::report::view
