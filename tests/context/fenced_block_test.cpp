#include "fenced_block.hpp"

#include <gtest/gtest.h>

namespace ptxbench::context_docs {
namespace {

TEST(FencedBlocks, FindsBlocksWithInfoStringsAndLines) {
  const auto blocks = fenced_blocks(
      "# Title\n"
      "text\n"
      "```cuda compile sass=HGMMA\n"
      "int x;\n"
      "```\n"
      "more\n"
      "~~~~ text\n"
      "```\n"
      "~~~~\n");
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].info, "cuda compile sass=HGMMA");
  EXPECT_EQ(blocks[0].code, "int x;\n");
  EXPECT_EQ(blocks[0].first_line, 3);
  EXPECT_TRUE(blocks[0].terminated);
  // A shorter fence of the other character is content, not a close.
  EXPECT_EQ(blocks[1].info, "text");
  EXPECT_EQ(blocks[1].code, "```\n");
}

TEST(FencedBlocks, ClosingFenceMustBeAtLeastAsLongAndBare) {
  const auto blocks = fenced_blocks("````cpp\n```\n```` trailing\n````\n");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].code, "```\n```` trailing\n");
}

TEST(FencedBlocks, NormalisesCrlfAndReportsUnterminatedBlocks) {
  const auto blocks = fenced_blocks("```cuda\r\na;\r\nb;\r\n");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].code, "a;\nb;\n");
  EXPECT_FALSE(blocks[0].terminated);
}

TEST(FencedBlocks, IgnoresIndentedCodeAndInlineBackticks) {
  EXPECT_TRUE(fenced_blocks("    ```cuda\n    x\n    ```\nuse `a` and ``b``\n").empty());
}

TEST(CompileMarker, ReadsCompileAndSassAttributes) {
  const auto marker = parse_compile_marker("cuda compile sass=HGMMA,UTMALDG");
  ASSERT_TRUE(marker.has_value());
  EXPECT_EQ(marker->language, "cuda");
  EXPECT_TRUE(marker->compile);
  EXPECT_EQ(marker->sass, (std::vector<std::string>{"HGMMA", "UTMALDG"}));
  EXPECT_TRUE(marker->unknown.empty());
}

TEST(CompileMarker, UntaggedAndMisspelledBlocks) {
  const auto plain = parse_compile_marker("cpp");
  ASSERT_TRUE(plain.has_value());
  EXPECT_FALSE(plain->compile);
  const auto typo = parse_compile_marker("cuda compiel");
  ASSERT_TRUE(typo.has_value());
  EXPECT_FALSE(typo->compile);
  EXPECT_EQ(typo->unknown, (std::vector<std::string>{"compiel"}));
  EXPECT_FALSE(parse_compile_marker("ptx").has_value());
  EXPECT_FALSE(parse_compile_marker("").has_value());
}

TEST(HasOpcode, MatchesWholeOpcodesWithModifiers) {
  const std::string sass =
      "        /*0400*/                   HGMMA.64x128x16.F32.BF16 gdesc[UR4], RZ, !UPT ;\n"
      "        /*0410*/              @P0  SYNCS.EXCH.64 URZ, [UR8], UR4 ;\n"
      "        /*0420*/                   UTCHMMA gdesc[UR10], gdesc[UR12], tmem[UR14] ;\n";
  EXPECT_TRUE(has_opcode(sass, "HGMMA"));
  EXPECT_TRUE(has_opcode(sass, "SYNCS"));
  EXPECT_TRUE(has_opcode(sass, "UTCHMMA"));
  EXPECT_FALSE(has_opcode(sass, "HMMA"));     // only inside UTCHMMA
  EXPECT_FALSE(has_opcode(sass, "UTMALDG"));  // absent
  EXPECT_FALSE(has_opcode(sass, "SYNC"));     // a prefix of SYNCS, not an opcode
  EXPECT_FALSE(has_opcode(sass, ""));
}

}  // namespace
}  // namespace ptxbench::context_docs
