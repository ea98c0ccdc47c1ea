// Stage 1: code from model replies as they really come back.
#include <gtest/gtest.h>

#include <random>

#include "ptxbench/extract/extract.hpp"

namespace ptxbench::extract {
namespace {

TEST(ExtractCode, TakesTheBlockOfATypicalReply) {
  const std::string reply =
      "Here is a Hopper kernel using wgmma and TMA.\n\n"
      "```cuda\n"
      "#include <tvm/ffi/function.h>\n"
      "__global__ void k() {}\n"
      "```\n\n"
      "It pipelines 4 stages.\n";
  EXPECT_EQ(extract_code(reply), "#include <tvm/ffi/function.h>\n__global__ void k() {}\n");
}

TEST(ExtractCode, SeveralBlocksGiveTheLast) {
  const std::string reply =
      "First attempt:\n```cpp\nint first;\n```\n"
      "Build it with:\n```\nnvcc -arch=sm_90a x.cu\n```\n"
      "Final version:\n```cuda\nint final_version;\n```\nDone.";
  EXPECT_EQ(extract_code(reply), "int final_version;\n");
}

TEST(ExtractCode, NoBlockGivesNothing) {
  EXPECT_EQ(extract_code("I cannot write this kernel without more information."), std::nullopt);
  EXPECT_EQ(extract_code(""), std::nullopt);
  EXPECT_EQ(extract_code("Use `run()` and ``TensorView`` as usual."), std::nullopt);
}

TEST(ExtractCode, EmptyBlocksAreNotCode) {
  EXPECT_EQ(extract_code("```cuda\n```\n"), std::nullopt);
  EXPECT_EQ(extract_code("```cuda\nint a;\n```\nand\n```\n   \n```\n"), "int a;\n");
}

TEST(ExtractCode, UnterminatedFenceRunsToTheEnd) {
  const std::string reply =
      "```cuda\nint complete;\n```\n"
      "Now the full kernel:\n```cuda\n__global__ void k() {\n  int cut_off_by_the_token_limit";
  EXPECT_EQ(extract_code(reply), "__global__ void k() {\n  int cut_off_by_the_token_limit\n");
}

TEST(ExtractCode, CrlfAndLoneCrAreNormalised) {
  EXPECT_EQ(extract_code("Text\r\n```cuda\r\nint a;\r\nint b;\r\n```\r\n"), "int a;\nint b;\n");
  EXPECT_EQ(extract_code("```\rint a;\r```\r"), "int a;\n");
}

TEST(ExtractCode, TildeFencesMayHoldBacktickFences) {
  const std::string reply =
      "~~~cuda\n"
      "// usage:\n"
      "// ```\n"
      "// run(A, B, C);\n"
      "// ```\n"
      "int kernel;\n"
      "~~~\n";
  EXPECT_EQ(extract_code(reply), "// usage:\n// ```\n// run(A, B, C);\n// ```\nint kernel;\n");
}

TEST(ExtractCode, LongerFenceIsClosedOnlyByALongEnoughOne) {
  const std::string reply = "````markdown\n```cuda\nint inner;\n```\n````\n";
  EXPECT_EQ(extract_code(reply), "```cuda\nint inner;\n```\n");
}

TEST(ExtractCode, BackticksInProseOpenNoBlock) {
  const std::string reply =
      "Call ```run()``` exactly once; the ``TensorView`` arguments are views.\n"
      "```cuda\nint real;\n```\n"
      "Note: ```this is inline``` too.\n";
  EXPECT_EQ(extract_code(reply), "int real;\n");
}

TEST(ExtractCode, IndentedFenceInAListLosesItsIndent) {
  const std::string reply = "1. The kernel:\n   ```cuda\n   int a;\n     int b;\n   ```\n";
  EXPECT_EQ(extract_code(reply), "int a;\n  int b;\n");
}

TEST(ExtractCode, ClosingFenceMayCarryTrailingSpacesButNotText) {
  EXPECT_EQ(extract_code("```\nint a;\n```   \n"), "int a;\n");
  // "``` not a close" is content; the block then runs to the end.
  EXPECT_EQ(extract_code("```\nint a;\n``` not a close\nint b;\n"),
            "int a;\n``` not a close\nint b;\n");
}

// Replies assembled from the pieces that matter (fences of both kinds and lengths, info strings,
// CR, LF, indentation, text) must never crash, and what comes back is non-blank and has no CR.
TEST(ExtractCode, RandomRepliesNeverCrash) {
  const std::vector<std::string> pieces{"```", "````", "~~~",    "`",    "cuda", "\n", "\r\n", "\r",
                                        "   ", "    ", "int x;", "text", "~",    "\t", "``` x"};
  std::mt19937 rng(2024);
  int found = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string reply;
    const int length = static_cast<int>(rng() % 40);
    for (int j = 0; j < length; ++j) reply += pieces[rng() % pieces.size()];
    if (i % 7 == 0) reply += std::string(1, static_cast<char>(rng() % 256));
    std::optional<std::string> code;
    ASSERT_NO_THROW(code = extract_code(reply));
    if (code) {
      ++found;
      EXPECT_EQ(code->find('\r'), std::string::npos);
      EXPECT_NE(code->find_first_not_of(" \t\n"), std::string::npos);
    }
  }
  EXPECT_GT(found, 100);  // the generator does produce blocks
}

}  // namespace
}  // namespace ptxbench::extract
