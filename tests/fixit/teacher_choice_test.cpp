// The teacher a command line names: the replay catalog, a provider config, or a program whose
// command line is split as a shell splits it.
#include "ptxbench/fixit/teacher_choice.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "ptxbench/agent/solution_catalog.hpp"
#include "ptxbench/fixit/replay_teacher.hpp"

namespace ptxbench::fixit {
namespace {

using Words = std::vector<std::string>;

TEST(TeacherChoice, ACommandLineKeepsQuotedWordsTogether) {
  auto choice = teacher_choice({.command_line = R"(python3 "my teachers/teacher.py")"});
  ASSERT_TRUE(choice) << choice.error().message;
  EXPECT_EQ(choice->command, (Words{"python3", "my teachers/teacher.py"}));
  EXPECT_EQ(choice->name, "teacher");  // the stem of the last word
  EXPECT_TRUE(choice->replay_solutions.empty());
  EXPECT_TRUE(choice->config_file.empty());
}

TEST(TeacherChoice, ABadCommandLineIsNamed) {
  auto choice = teacher_choice({.command_line = "python3 'teacher.py"});
  ASSERT_FALSE(choice);
  EXPECT_EQ(choice.error().message, "a single quote is not closed");
  EXPECT_FALSE(teacher_choice({.command_line = "teacher | tee log"}));
}

TEST(TeacherChoice, ReplayTakesTheGivenOrTheBuiltInSolutions) {
  auto given = teacher_choice({.kind = "replay", .solutions_dir = "/sol"});
  ASSERT_TRUE(given);
  EXPECT_EQ(given->replay_solutions, "/sol");
  EXPECT_TRUE(given->command.empty());
  auto built_in = teacher_choice({.kind = "replay"});
  ASSERT_TRUE(built_in);
  EXPECT_EQ(built_in->replay_solutions, agent::default_solutions_dir().string());
}

// The replay teacher repairs whatever is mined from the shipped broken controls: each has a
// repair and an explanation in solutions/fixit/catalog.json.
TEST(TeacherChoice, TheReplayCatalogCoversEveryShippedBrokenControl) {
  const auto solutions = agent::default_solutions_dir();
  auto catalog = load_replay_catalog(solutions);
  ASSERT_TRUE(catalog) << catalog.error().message;
  std::set<std::string> covered;
  for (const auto& entry : *catalog) covered.insert(entry.broken.filename().string());
  int controls = 0;
  for (const auto& file : std::filesystem::directory_iterator(solutions / "broken")) {
    if (file.path().extension() != ".cu") continue;
    ++controls;
    EXPECT_TRUE(covered.contains(file.path().filename().string()))
        << file.path() << " has no entry in fixit/catalog.json";
  }
  EXPECT_GT(controls, 0);
}

TEST(TeacherChoice, AConfigFileIsPassedOn) {
  auto choice = teacher_choice({.config_file = "teacher.yaml"});
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->config_file, "teacher.yaml");
  EXPECT_TRUE(choice->command.empty());
  EXPECT_TRUE(choice->name.empty());
}

}  // namespace
}  // namespace ptxbench::fixit
