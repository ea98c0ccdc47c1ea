// The typed field reader of config files and requests, and the clock helpers.
#include "ptxbench/util/field_reader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "ptxbench/util/timestamps.hpp"

namespace ptxbench::util {
namespace {
using Json = nlohmann::json;

TEST(FieldReader, ReadsTypedFieldsAndKeepsTheFirstProblem) {
  const Json object{{"n", 3}, {"s", "text"}, {"b", true}, {"x", 1.5}};
  FieldReader fields(object, "file.yaml: section.");
  int n = 0;
  std::string s;
  bool b = false;
  std::optional<double> x;
  std::optional<int> absent;
  fields.read("n", n);
  fields.read("s", s);
  fields.read("b", b);
  fields.read("x", x);
  fields.read("absent", absent);
  EXPECT_EQ(fields.finish(), "");
  EXPECT_EQ(n, 3);
  EXPECT_EQ(s, "text");
  EXPECT_TRUE(b);
  EXPECT_EQ(x, 1.5);
  EXPECT_FALSE(absent.has_value());
}

TEST(FieldReader, RefusesWrappedIntegersWrongTypesAndUnknownFields) {
  const Json wrapped{{"n", 4294967297LL}};
  FieldReader integers(wrapped, "run.yaml: ");
  int n = 7;
  integers.read("n", n);
  EXPECT_EQ(n, 7);  // get<int> would have made it 1
  EXPECT_THAT(integers.finish(), ::testing::StartsWith("run.yaml: n: expected an integer"));

  const Json zero{{"k", 0}};
  FieldReader ranged(zero, "");
  int k = 1;
  ranged.read_integer("k", 1, 64, k);
  EXPECT_EQ(ranged.finish(), "k: expected an integer from 1 to 64 (got 0)");

  const Json yes{{"b", "yes"}};
  FieldReader typed(yes, "a.");
  bool flag = false;
  typed.read("b", flag);
  EXPECT_EQ(typed.finish(), "a.b: expected true or false");

  const Json typo{{"known", 1}, {"typo", 2}};
  FieldReader unknown(typo, "a.");
  int known = 0;
  unknown.read("known", known);
  EXPECT_EQ(unknown.finish(), "a.typo: unknown field");

  const Json list = Json::array();
  FieldReader not_mapping(list, "evaluation.");
  EXPECT_EQ(not_mapping.finish(), "evaluation: expected a mapping");
  EXPECT_EQ(integer_problem(Json(5), 1, 4), "expected an integer from 1 to 4 (got 5)");
  EXPECT_FALSE(integer_problem(Json(4), 1, 4).has_value());
}

// The one place where a JSON value is checked before get<T>(): every reader (config files,
// task files, requests, the worker protocol) goes through it.
TEST(FieldReader, ValueProblemsCoverEveryScalarTypeAtFullWidth) {
  EXPECT_FALSE(value_problem<int>(Json(-5)).has_value());
  EXPECT_EQ(value_problem<int>(Json(4294967297LL)),
            "expected an integer from -2147483648 to 2147483647 (got 4294967297)");
  EXPECT_TRUE(value_problem<int>(Json(1.5)).has_value());
  EXPECT_TRUE(value_problem<std::int64_t>(Json(18446744073709551615ull)).has_value());
  EXPECT_FALSE(value_problem<std::uint64_t>(Json(18446744073709551615ull)).has_value());
  EXPECT_FALSE(value_problem<std::uint64_t>(Json(0)).has_value());
  EXPECT_EQ(value_problem<std::size_t>(Json(-1)), "expected a non-negative integer (got -1)");
  EXPECT_TRUE(value_problem<std::uint8_t>(Json(256)).has_value());
  EXPECT_FALSE(value_problem<double>(Json(3)).has_value());
  EXPECT_TRUE(value_problem<double>(Json("3")).has_value());
  EXPECT_EQ(value_problem<bool>(Json(1)), "expected true or false");
  EXPECT_EQ(value_problem<std::string>(Json(1)), "expected a string");
  EXPECT_EQ(integer_problem(nlohmann::ordered_json(0), 1, 9),
            "expected an integer from 1 to 9 (got 0)");
  // Unsigned values above INT64_MAX are compared as unsigned, never wrapped to negative ones.
  EXPECT_TRUE(integer_problem(Json(18446744073709551615ull), -1, 9).has_value());
}

TEST(FieldReader, StrictParsingFindsEveryKeyGivenTwice) {
  std::vector<std::pair<std::string, std::string>> duplicates;
  auto json = parse_json_strict(R"({"a": 1, "b": {"c": [ {"d": 1, "d": 2} ], "c2": 0}, "a": 3})",
                                duplicates);
  EXPECT_EQ(json["a"], 3);
  ASSERT_EQ(duplicates.size(), 2u);
  EXPECT_EQ(duplicates[0], (std::pair<std::string, std::string>{"b.c", "d"}));
  EXPECT_EQ(duplicates[1], (std::pair<std::string, std::string>{"", "a"}));
  duplicates.clear();
  auto ordered = parse_json_strict<nlohmann::ordered_json>(R"({"z": 1, "y": 2})", duplicates);
  EXPECT_TRUE(duplicates.empty());
  EXPECT_EQ(ordered.begin().key(), "z");  // file order kept
  EXPECT_THROW(parse_json_strict("{", duplicates), Json::parse_error);
}

TEST(FieldReader, RequiredFieldsAndRangedOptionals) {
  const Json object{{"s", "x"}, {"n", 5}};
  FieldReader fields(object, "req: ");
  std::string s, missing;
  std::optional<int> n;
  fields.require("s", s);
  fields.read_integer("n", 1, 9, n);
  EXPECT_EQ(n, 5);
  fields.require("missing", missing);
  EXPECT_EQ(fields.finish(), "req: missing: required");
}

TEST(Timestamps, AreIsoUtcAndFolderStamps) {
  EXPECT_TRUE(
      std::regex_match(utc_timestamp(), std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)")));
  EXPECT_TRUE(std::regex_match(utc_timestamp("%Y%m%d-%H%M%S"), std::regex(R"(\d{8}-\d{6})")));
  const auto start = std::chrono::steady_clock::now() - std::chrono::milliseconds(1500);
  EXPECT_GE(seconds_since(start), 1.5);
  EXPECT_LT(seconds_since(start), 60.0);
}

}  // namespace
}  // namespace ptxbench::util
