// One row per setting: a row added to the setting table appears as a flag, a file field, a JSON
// member and a line of the docs' table; the docs' table is the code's.
#include "ptxbench/cli/settings_flags.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <vector>

#include "ptxbench/config.hpp"
#include "ptxbench/eval/setting_table.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::cli {
namespace {
using ::testing::HasSubstr;
using Json = nlohmann::json;

// The built-in table and one more row, kept in `parallel` (a test needs no new member).
std::vector<eval::SettingRow> table_with_one_more_row() {
  const auto builtin = eval::setting_table();
  std::vector<eval::SettingRow> table(builtin.begin(), builtin.end());
  table.push_back({.setting = static_cast<eval::Setting>(eval::kBuiltinSettings),
                   .field = "example_budget",
                   .flag = "--example-budget",
                   .help = "an example setting added by one row",
                   .type = eval::SettingType::kInteger,
                   .min = 1,
                   .max = 9,
                   .get = [](const eval::EvaluationSettings& s) { return Json(s.parallel); },
                   .set =
                       [](eval::EvaluationSettings& s, const Json& v) {
                         s.parallel = v.get<int>();
                         return std::string();
                       }});
  return table;
}

util::Expected<eval::EvaluationSettings> parse_flags(std::vector<std::string> argv,
                                                     std::span<const eval::SettingRow> table) {
  CLI::App app("test");
  SettingsFlags flags;
  add_settings_flags(app, flags, eval::SettingSet::all(), {}, table);
  argv.insert(argv.begin(), "test");
  std::vector<const char*> args;
  for (const auto& a : argv) args.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    return util::make_error(e.what());
  }
  return settings_from_flags(flags, {}, table);
}

TEST(SettingTable, ARowAddedOnceIsAFlagAFieldJsonAndADocsLine) {
  const auto table = table_with_one_more_row();
  // The flag.
  auto flagged = parse_flags({"--example-budget", "7"}, table);
  ASSERT_TRUE(flagged.has_value()) << flagged.error().message;
  EXPECT_EQ(flagged->parallel, 7);
  EXPECT_FALSE(parse_flags({"--example-budget", "10"}, table).has_value());  // its range
  EXPECT_FALSE(parse_flags({"--example-budget", "7"}, eval::setting_table()).has_value());
  // The file field, with its range.
  auto read = eval::read_settings(Json{{"example_budget", 5}}, {}, eval::SettingSet::all(),
                                  "evaluation", {}, table);
  ASSERT_TRUE(read.has_value()) << read.error().message;
  EXPECT_EQ(read->parallel, 5);
  auto out_of_range = eval::read_settings(Json{{"example_budget", 0}}, {}, eval::SettingSet::all(),
                                          "evaluation", {}, table);
  ASSERT_FALSE(out_of_range.has_value());
  EXPECT_THAT(out_of_range.error().message,
              HasSubstr("evaluation.example_budget: expected an integer from 1 to 9 (got 0)"));
  // A command that does not offer it refuses it.
  auto refused = eval::read_settings(
      Json{{"example_budget", 5}}, {},
      eval::SettingSet::all().without(static_cast<eval::Setting>(eval::kBuiltinSettings)),
      "evaluation", {}, table);
  ASSERT_FALSE(refused.has_value());
  EXPECT_THAT(refused.error().message, HasSubstr("example_budget: not a setting of this command"));
  // JSON, read back the same.
  const Json json = eval::settings_to_json(*read, eval::SettingSet::all(), table);
  EXPECT_EQ(json.at("example_budget"), 5);
  // The docs' line.
  EXPECT_THAT(eval::settings_markdown(table),
              HasSubstr("| `example_budget` | `--example-budget` | 0 | 1 to 9 | an example "
                        "setting added by one row |"));
}

TEST(SettingTable, FlagsAndFilesShareEveryCheck) {
  util::TempDir dir;
  const auto file = dir.path() / "a-file";
  util::write_file_atomic(file, "x");
  // A cache that is a file would silently never cache: refused as a flag and as a field.
  auto flagged = parse_flags({"--verdict-cache", file.string()}, eval::setting_table());
  ASSERT_FALSE(flagged.has_value());
  EXPECT_THAT(flagged.error().message, HasSubstr("exists and is not a directory"));
  for (const char* field : {"compile_cache", "verdict_cache", "keep_artifacts"}) {
    auto read = eval::read_settings(Json{{field, file.string()}}, {}, eval::SettingSet::all(),
                                    "evaluation");
    ASSERT_FALSE(read.has_value()) << field;
    EXPECT_THAT(read.error().message, HasSubstr(std::string("evaluation.") + field));
    EXPECT_THAT(read.error().message, HasSubstr("exists and is not a directory"));
  }
  auto devnull = eval::read_settings(Json{{"compile_cache", "/dev/null"}}, {},
                                     eval::SettingSet::all(), "evaluation");
  EXPECT_FALSE(devnull.has_value());
  // --no-gpu sets gpu to false, as `gpu: false` does.
  auto no_gpu = parse_flags({"--no-gpu"}, eval::setting_table());
  ASSERT_TRUE(no_gpu.has_value()) << no_gpu.error().message;
  EXPECT_FALSE(no_gpu->gpu);
  // Every default the help shows is the default the settings hold.
  auto defaults = parse_flags({}, eval::setting_table());
  ASSERT_TRUE(defaults.has_value());
  EXPECT_EQ(eval::settings_to_json(*defaults, eval::SettingSet::all()),
            eval::settings_to_json(eval::EvaluationSettings{}, eval::SettingSet::all()));
}

// A profile sets its values first; a setting given beside it wins, in a file as on the command
// line.
TEST(SettingTable, AProfileIsAPresetTheSettingsBesideItOverride) {
  auto rl = parse_flags({"--profile", "rl"}, eval::setting_table());
  ASSERT_TRUE(rl.has_value()) << rl.error().message;
  EXPECT_EQ(rl->profile, "rl");
  EXPECT_EQ(rl->seed_pool, 16);
  EXPECT_TRUE(rl->judge.reference_cache);
  EXPECT_EQ(rl->gpu_concurrency, 4);
  EXPECT_FALSE(rl->compile_cache.empty());
  EXPECT_FALSE(rl->verdict_cache.empty());
  EXPECT_EQ(rl->judge.mode, eval::JudgeMode::kWarm);
  auto overridden = parse_flags({"--seed-pool", "4", "--profile", "rl"}, eval::setting_table());
  ASSERT_TRUE(overridden.has_value()) << overridden.error().message;
  EXPECT_EQ(overridden->seed_pool, 4);
  auto from_file = eval::read_settings(Json{{"gpu_concurrency", 2}, {"profile", "rl"}}, {},
                                       eval::SettingSet::all(), "evaluation");
  ASSERT_TRUE(from_file.has_value()) << from_file.error().message;
  EXPECT_EQ(from_file->gpu_concurrency, 2);
  EXPECT_EQ(from_file->seed_pool, 16);
  auto unknown =
      eval::read_settings(Json{{"profile", "fast"}}, {}, eval::SettingSet::all(), "evaluation");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_THAT(unknown.error().message, HasSubstr("expected benchmark or rl"));
  EXPECT_EQ(eval::EvaluationSettings{}.profile, "benchmark");
}

// docs/running.md's settings table is the code's table, line for line.
TEST(SettingTable, TheDocsTableIsTheCodesTable) {
  auto text = util::read_file(config::source_path("docs/running.md"));
  ASSERT_TRUE(text.has_value()) << text.error().message;
  const std::string begin =
      "<!-- settings-table: generated by `ptxbench settings --markdown` -->\n";
  const std::string end = "<!-- settings-table: end -->";
  const auto from = text->find(begin);
  const auto to = text->find(end);
  ASSERT_NE(from, std::string::npos) << "docs/running.md lacks the settings table's markers";
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(text->substr(from + begin.size(), to - from - begin.size()), eval::settings_markdown())
      << "docs/running.md's settings table differs from the code's; regenerate it with "
         "`ptxbench settings --markdown`";
}

}  // namespace
}  // namespace ptxbench::cli
