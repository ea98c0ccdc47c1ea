#include "ptxbench/util/utf8.hpp"

#include <gtest/gtest.h>

namespace ptxbench::util {
namespace {

constexpr std::string_view kChinese = "\xE4\xB8\xAD\xE6\x96\x87";  // two 3-byte characters
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

TEST(Utf8, TellsValidFromInvalid) {
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8(kChinese));
  EXPECT_TRUE(is_valid_utf8("\xF0\x9F\x98\x80"));  // U+1F600
  EXPECT_FALSE(is_valid_utf8("\xFF"));
  EXPECT_FALSE(is_valid_utf8("\xE4\xB8"));          // cut inside a character
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // a surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
}

TEST(Utf8, ReplacesEachBadByteAndKeepsTheRest) {
  EXPECT_EQ(valid_utf8("a\xFF"
                       "b"),
            std::string("a") + std::string(kReplacement) + "b");
  EXPECT_EQ(valid_utf8(kChinese), kChinese);
  const std::string cut = std::string(kChinese.substr(0, 4));  // one character and a piece
  EXPECT_EQ(valid_utf8(cut), std::string(kChinese.substr(0, 3)) + std::string(kReplacement));
  EXPECT_TRUE(is_valid_utf8(valid_utf8("\xC3\x28\xA0\xA1\xE2\x82")));
}

TEST(Utf8, PrefixAndSuffixNeverSplitACharacter) {
  const std::string text = "x" + std::string(kChinese);  // 1 + 3 + 3 bytes
  EXPECT_EQ(utf8_prefix(text, 3), "x");
  EXPECT_EQ(utf8_prefix(text, 4), "x" + std::string(kChinese.substr(0, 3)));
  EXPECT_EQ(utf8_prefix(text, 100), text);
  EXPECT_TRUE(is_valid_utf8(utf8_prefix(text, 5)));
  EXPECT_EQ(utf8_suffix(text, 5), kChinese.substr(3));
  EXPECT_EQ(utf8_suffix(text, 6), kChinese);
  EXPECT_EQ(utf8_prefix("\xFF\xFF\xFF", 2), "\xFF\xFF");  // bad bytes count one each
}

TEST(Utf8, Base64RoundTripsAnyBytes) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  for (std::size_t n : {0u, 1u, 2u, 3u, 4u, 255u, 256u}) {
    const auto part = bytes.substr(0, n);
    EXPECT_EQ(base64_decode(base64_encode(part)), part) << n;
  }
  EXPECT_EQ(base64_encode("Man"), "TWFu");
  EXPECT_EQ(base64_encode("M"), "TQ==");
  EXPECT_EQ(base64_decode("not base64!"), "");
}

}  // namespace
}  // namespace ptxbench::util
