#include "ptxbench/util/json_text.hpp"

#include <gtest/gtest.h>

#include "ptxbench/util/utf8.hpp"

namespace ptxbench::util {
namespace {

using Json = nlohmann::json;

const std::string kRawReply = "```cuda\n// \xE4\xB8\xAD\xE6\x96 cut, then \xFF raw\n```\n";

TEST(JsonText, PlainDumpThrowsOnBytesThatAreNotUtf8) {
  // Why dump_json exists: nlohmann's default dump refuses such strings.
  Json json{{"content", kRawReply}};
  EXPECT_THROW(static_cast<void>(json.dump()), Json::type_error);
  EXPECT_NO_THROW(static_cast<void>(dump_json(json)));
}

TEST(JsonText, KeepsTheExactBytesBesideValidText) {
  Json json{{"messages", Json::array({{{"role", "assistant"}, {"content", kRawReply}}})},
            {"log", "fine"},
            {"list", Json::array({"\xFF"})}};
  const Json written = Json::parse(dump_json(json, 1));
  const Json& message = written["messages"][0];
  EXPECT_TRUE(is_valid_utf8(message["content"].get<std::string>()));
  EXPECT_TRUE(message.contains("content_base64"));
  EXPECT_FALSE(written.contains("log_base64"));   // valid text gets no sibling
  EXPECT_EQ(written["list"][0], "\xEF\xBF\xBD");  // inside arrays only the valid text

  Json read = written;
  restore_bytes(read);
  EXPECT_EQ(read["messages"][0]["content"], kRawReply);
  EXPECT_FALSE(read["messages"][0].contains("content_base64"));
  EXPECT_EQ(read["log"], "fine");
}

TEST(JsonText, RestoreLeavesForeignMembersAlone) {
  Json json{{"data_base64", "not base64!"}, {"data", "x"}, {"lonely_base64", "QQ=="}};
  restore_bytes(json);
  EXPECT_EQ(json["data"], "x");
  EXPECT_TRUE(json.contains("data_base64"));
  EXPECT_TRUE(json.contains("lonely_base64"));
}

}  // namespace
}  // namespace ptxbench::util
