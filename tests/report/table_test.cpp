// The four renderings of one table: the export schema (measure columns flattened), escaping,
// and the checks on rows.
#include "ptxbench/report/table.hpp"

#include <gtest/gtest.h>

#include "ptxbench/report/csv.hpp"

namespace ptxbench::report {
namespace {

Table sample_table() {
  Table t{.name = "sample",
          .title = "Sample",
          .description = "rows",
          .columns = {{.name = "model", .kind = ColumnKind::kText, .description = "the model"},
                      {.name = "n", .kind = ColumnKind::kInteger},
                      {.name = "speedup", .kind = ColumnKind::kNumber, .decimals = 3},
                      {.name = "correct", .kind = ColumnKind::kMeasure}}};
  t.add_row({std::string("a|b, \"c\" <d>"), std::int64_t{12}, 1.23456,
             measure_of(Proportion{.k = 9, .n = 12})});
  t.add_row(
      {std::string("empty"), std::int64_t{0}, Cell(), measure_of(Proportion{.k = 0, .n = 0})});
  return t;
}

TEST(Table, ExportHeaderFlattensMeasures) {
  EXPECT_EQ(export_header(sample_table()),
            (std::vector<std::string>{"model", "n", "speedup", "correct", "correct_lo",
                                      "correct_hi", "correct_k", "correct_n"}));
}

TEST(Table, CsvHasOneFieldPerHeaderColumnAndFullPrecision) {
  auto records = parse_csv(to_csv(sample_table()));
  ASSERT_TRUE(records);
  ASSERT_EQ(records->size(), 3u);
  for (const auto& r : *records) EXPECT_EQ(r.size(), 8u);
  const auto& row = (*records)[1];
  EXPECT_EQ(row[0], "a|b, \"c\" <d>");
  EXPECT_EQ(row[2], "1.23456");
  EXPECT_EQ(row[3], "0.75");
  EXPECT_NEAR(std::stod(row[4]), 0.4677, 1e-4);  // Wilson 9/12
  EXPECT_NEAR(std::stod(row[5]), 0.9111, 1e-4);
  EXPECT_EQ(row[6], "9");
  EXPECT_EQ(row[7], "12");
  const auto& empty = (*records)[2];
  EXPECT_EQ(empty[2], "");
  EXPECT_EQ(empty[3], "");  // no rate for n = 0
  EXPECT_EQ(empty[7], "0");
}

TEST(Table, JsonRowsUseTheExportNames) {
  const auto j = to_json(sample_table());
  EXPECT_EQ(j["name"], "sample");
  ASSERT_EQ(j["columns"].size(), 4u);
  EXPECT_EQ(j["columns"][3]["kind"], "measure");
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["correct_k"], 9);
  EXPECT_DOUBLE_EQ(j["rows"][0]["correct"].get<double>(), 0.75);
  EXPECT_TRUE(j["rows"][1]["correct"].is_null());
  EXPECT_TRUE(j["rows"][1]["speedup"].is_null());
  std::vector<std::string> keys;
  for (const auto& [key, value] : j["rows"][0].items()) keys.push_back(key);
  auto header = export_header(sample_table());
  std::sort(header.begin(), header.end());
  EXPECT_EQ(keys, header);  // nlohmann orders keys
}

TEST(Table, MarkdownAndHtmlEscapeAndShowIntervals) {
  const auto md = to_markdown(sample_table());
  EXPECT_NE(md.find("a\\|b"), std::string::npos);
  EXPECT_NE(md.find("0.75 [0.47, 0.91] 9/12"), std::string::npos);
  EXPECT_NE(md.find("(n=0)"), std::string::npos);
  const auto html = to_html(sample_table());
  EXPECT_NE(html.find("&lt;d&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<d>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"n\">9/12</span>"), std::string::npos);
  EXPECT_NE(html.find("title=\"the model\""), std::string::npos);
}

TEST(Table, EmptyTableKeepsItsHeader) {
  Table t = sample_table();
  t.rows.clear();
  EXPECT_EQ(to_csv(t), "model,n,speedup,correct,correct_lo,correct_hi,correct_k,correct_n\n");
  EXPECT_NE(to_markdown(t).find("No rows"), std::string::npos);
  EXPECT_TRUE(to_json(t)["rows"].empty());
}

TEST(Table, RowsMustMatchTheColumns) {
  Table t = sample_table();
  EXPECT_THROW(t.add_row({std::string("short")}), std::runtime_error);
  EXPECT_THROW(t.add_row({std::int64_t{1}, std::int64_t{1}, 1.0, Measure{}}), std::runtime_error);
}

}  // namespace
}  // namespace ptxbench::report
