// Values written into generated files: YAML scalars that read back as written, Markdown that
// stays in its line and cell, bash words that pass through unchanged, and a refusal of control
// characters where a file's line cannot hold them.
#include "ptxbench/util/generated_text.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "ptxbench/util/process.hpp"

namespace ptxbench::util {
namespace {

const std::vector<std::string> kNasty{"plain",     "a: b",        "x\nlicense: evil",
                                      "---",       "# c",         "\"quoted\" 'single'",
                                      "tab\there", "back\\slash", "",
                                      "ünïcode ✓", "- item",      "{a: 1}",
                                      "esc\x1b[0m"};

TEST(GeneratedText, YamlScalarsReadBackAsWritten) {
  for (const auto& value : kNasty) {
    const auto node = YAML::Load("key: " + yaml_quoted(value));
    ASSERT_TRUE(node.IsMap()) << value;
    EXPECT_EQ(node.size(), 1u) << value;
    EXPECT_EQ(node["key"].as<std::string>(), value);
  }
}

TEST(GeneratedText, ShellWordsPassThroughBash) {
  SystemProcessRunner runner;
  for (const auto& value : kNasty) {
    auto result = runner.run({.argv = {"bash", "-c", "printf %s " + shell_quoted(value)}});
    ASSERT_EQ(result.exit_code, 0) << value;
    EXPECT_EQ(result.stdout_text, value);
  }
}

TEST(GeneratedText, MarkdownStaysInItsLineAndCell) {
  EXPECT_EQ(markdown_inline("a|b\n# c\t\x1b"), "a\\|b\\n# c\\t\\u001b");
  EXPECT_EQ(markdown_inline("ünïcode ✓"), "ünïcode ✓");
}

TEST(GeneratedText, OneLineRefusesControlCharacters) {
  EXPECT_EQ(*one_line("--name", "ok name ✓", "a card"), "ok name ✓");
  auto refused = one_line("--out", "a\nb", "an #SBATCH line");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().message,
            "--out: \"a\\nb\" holds a control character, which an #SBATCH line cannot hold");
  EXPECT_FALSE(one_line("x", "del\x7f", "y").has_value());
}

}  // namespace
}  // namespace ptxbench::util
