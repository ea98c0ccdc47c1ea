#include "ptxbench/report/csv.hpp"

#include <gtest/gtest.h>

namespace ptxbench::report {
namespace {

TEST(Csv, PlainAndQuotedFields) {
  auto records =
      parse_csv("model,arch,n\n\"Qwen, tuned\",hopper,12\r\n\"say \"\"hi\"\"\",b,\"1\n2\"\n");
  ASSERT_TRUE(records) << records.error().message;
  ASSERT_EQ(records->size(), 3u);
  EXPECT_EQ((*records)[0], (CsvRecord{"model", "arch", "n"}));
  EXPECT_EQ((*records)[1], (CsvRecord{"Qwen, tuned", "hopper", "12"}));
  EXPECT_EQ((*records)[2], (CsvRecord{"say \"hi\"", "b", "1\n2"}));
}

TEST(Csv, EmptyFieldsBlankLinesBomAndNoFinalNewline) {
  auto records = parse_csv(
      "\xEF\xBB\xBF"
      "a,,c\n\n,\n\"\"\nlast,row");
  ASSERT_TRUE(records);
  ASSERT_EQ(records->size(), 4u);
  EXPECT_EQ((*records)[0], (CsvRecord{"a", "", "c"}));
  EXPECT_EQ((*records)[1], (CsvRecord{"", ""}));
  EXPECT_EQ((*records)[2], (CsvRecord{""}));
  EXPECT_EQ((*records)[3], (CsvRecord{"last", "row"}));
  EXPECT_TRUE(parse_csv("")->empty());
}

TEST(Csv, MalformedRecordsNameTheirLine) {
  auto unterminated = parse_csv("a,b\n\"open,c\n");
  ASSERT_FALSE(unterminated);
  EXPECT_NE(unterminated.error().message.find("line 2"), std::string::npos);
  auto after_quote = parse_csv("a\n\"x\"y\n");
  ASSERT_FALSE(after_quote);
  EXPECT_NE(after_quote.error().message.find("line 2"), std::string::npos);
  EXPECT_FALSE(parse_csv("ab\"c\n"));
}

TEST(Csv, WriterQuotesOnlyWhenNeededAndRoundTrips) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("q\"q"), "\"q\"\"q\"");
  const CsvRecord fields{"x", "a,b", "line\nbreak", "\"", ""};
  auto back = parse_csv(csv_line(fields));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ(back->front(), fields);
}

}  // namespace
}  // namespace ptxbench::report
