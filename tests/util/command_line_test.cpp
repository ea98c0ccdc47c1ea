// A command line split into argv words: as sh splits them (checked against sh itself), with
// nothing expanded, and with a shell's operators and unterminated quotes refused by name.
#include "ptxbench/util/command_line.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ptxbench/util/generated_text.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::util {
namespace {

using Words = std::vector<std::string>;

Words split(std::string_view line) {
  auto words = split_command_line(line);
  EXPECT_TRUE(words) << line << ": " << words.error().message;
  return words ? *words : Words{};
}

TEST(CommandLine, WordsAndQuotes) {
  EXPECT_EQ(split("python3 teacher.py"), (Words{"python3", "teacher.py"}));
  EXPECT_EQ(split("  a\t b\n"), (Words{"a", "b"}));
  EXPECT_EQ(split(R"(python3 "my teacher.py" --name 'x y')"),
            (Words{"python3", "my teacher.py", "--name", "x y"}));
  EXPECT_EQ(split(R"(a\ b c'd'"e")"), (Words{"a b", "cde"}));
  EXPECT_EQ(split(R"('' "" x)"), (Words{"", "", "x"}));
  EXPECT_EQ(split(R"("a\"b\\c\d" 'e\f')"), (Words{R"(a"b\c\d)", R"(e\f)"}));
  EXPECT_TRUE(split("").empty());
  EXPECT_TRUE(split(" \t ").empty());
}

TEST(CommandLine, NothingIsExpanded) {
  EXPECT_EQ(split("$HOME ~ *.cu"), (Words{"$HOME", "~", "*.cu"}));
}

TEST(CommandLine, ProblemsAreNamed) {
  auto problem = [](std::string_view line) {
    auto words = split_command_line(line);
    return words ? std::string("(split)") : words.error().message;
  };
  EXPECT_EQ(problem("a 'b"), "a single quote is not closed");
  EXPECT_EQ(problem("a \"b\\\""), "a double quote is not closed");
  EXPECT_EQ(problem("a\\"), "ends with a backslash");
  EXPECT_THAT(problem("teacher | tee log"), ::testing::StartsWith("'|' outside quotes"));
  for (const char* line : {"a;b", "a && b", "a > log", "a <in", "(a)", "`a`"})
    EXPECT_NE(problem(line), "(split)") << line;
  EXPECT_EQ(split("'a|b' \"c;d\" e\\>f"), (Words{"a|b", "c;d", "e>f"}));
}

// The same words as sh gives its arguments, for lines without expansions.
TEST(CommandLine, AsShSplitsThem) {
  SystemProcessRunner runner;
  for (const char* line :
       {"a b", R"(python3 "my teacher.py" --name 'x y')", R"(a\ b c'd'"e")", R"('' "" x)",
        R"("a\"b\\c\d" 'e\f')", "x\\\ny \"p\\\nq\"", "'ünï' \"✓ ✓\""}) {
    auto result = runner.run({.argv = {"sh", "-c", std::string("printf '%s\\0' ") + line}});
    ASSERT_EQ(result.exit_code, 0) << line << ": " << result.stderr_text;
    Words expected;
    for (std::size_t start = 0, end;
         (end = result.stdout_text.find('\0', start)) != std::string::npos; start = end + 1)
      expected.push_back(result.stdout_text.substr(start, end - start));
    EXPECT_EQ(split(line), expected) << line;
  }
}

TEST(CommandLine, AShellQuotedWordIsOneWord) {
  for (const char* value : {"plain", "it's", "a b", "\"q\" \\ $x |;&", ""})
    EXPECT_EQ(split(shell_quoted(value)), (Words{value})) << value;
}

}  // namespace
}  // namespace ptxbench::util
