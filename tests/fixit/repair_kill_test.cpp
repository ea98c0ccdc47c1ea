// `ptxbench fixit repair` killed with SIGKILL in the middle of the repairs (by its own slow
// teacher), then rerun: every row gets its repair, each turn is recorded once, what was recorded
// before the kill is unchanged, and only the calls in flight at the kill are asked again.
#include <gtest/gtest.h>

#include <csignal>
#include <map>

#include "fixit_samples.hpp"
#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/generated_text.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::fixit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr int kRows = 6;
constexpr int kTurns = 2;
constexpr int kConcurrency = 2;

std::map<std::string, agent::Trajectory> read_trajectories(const fs::path& dir) {
  std::map<std::string, agent::Trajectory> out;
  if (!fs::exists(dir / "trajectories")) return out;
  for (const auto& entry : fs::directory_iterator(dir / "trajectories")) {
    if (entry.path().filename().string().starts_with(".")) continue;
    auto trajectory = agent::trajectory_from_json(Json::parse(*util::read_file(entry.path())));
    if (trajectory) out[trajectory->info.id] = std::move(*trajectory);
  }
  return out;
}

util::ProcessResult run_repair(const fs::path& folder, const fs::path& state, int kill_at) {
  util::SystemProcessRunner runner;
  std::string script = (fs::path(PTXBENCH_TEST_DATA_DIR) / "slow_teacher.sh").string();
  return runner.run(
      {.argv = {PTXBENCH_EXE, "fixit", "repair", "--fixit", folder.string(), "--teacher-command",
                "sh " + script, "--turns", std::to_string(kTurns), "--concurrency",
                std::to_string(kConcurrency), "--no-gpu"},
       .timeout = std::chrono::seconds(300),
       .env = {{"PTXBENCH_TEST_STATE", state.string()},
               {"PTXBENCH_TEST_KILL_AT", std::to_string(kill_at)}}});
}

int calls_made(const fs::path& state) {
  auto text = util::read_file(state / "calls");
  return text ? static_cast<int>(std::count(text->begin(), text->end(), '\n')) : 0;
}

TEST(RepairKill, ResumesAfterSigkill) {
  util::TempDir work;
  fs::path folder_path = work.path() / "fixit";
  fs::path state = work.path() / "state";
  fs::create_directories(state);
  {
    auto folder = FixitFolder::open(folder_path);
    ASSERT_TRUE(folder);
    std::vector<MinedRow> rows;
    for (int i = 0; i < kRows; ++i)
      rows.push_back(testing::mined_row("gemm_n7168_k5120", eval::Verdict::kCompileError, 1, i));
    folder->write_mined(rows);
  }
  util::ProcessResult killed = run_repair(folder_path, state, 6);
  ASSERT_TRUE(killed.started) << killed.spawn_error;
  ASSERT_EQ(killed.term_signal, SIGKILL) << killed.describe_end() << "\n" << killed.stderr_text;
  auto before = read_trajectories(folder_path / "repair");
  int turns_before = 0;
  for (const auto& [id, t] : before) turns_before += t.completed_turns();
  ASSERT_GT(turns_before, 0);
  ASSERT_LT(turns_before, kRows * kTurns);
  EXPECT_FALSE(fs::exists(folder_path / "repairs.jsonl"));
  int calls_at_kill = calls_made(state);

  util::ProcessResult resumed = run_repair(folder_path, state, 1'000'000);
  ASSERT_TRUE(resumed.succeeded()) << resumed.describe_end() << "\n" << resumed.stderr_text;
  auto after = read_trajectories(folder_path / "repair");
  ASSERT_EQ(after.size(), static_cast<std::size_t>(kRows));
  for (const auto& [id, t] : after) {
    EXPECT_EQ(t.info.status, agent::TrajectoryStatus::kFinished) << id;
    ASSERT_EQ(t.completed_turns(), kTurns) << id;
    if (auto it = before.find(id); it != before.end()) {
      for (std::size_t i = 0; i < it->second.turns.size(); ++i) {
        EXPECT_EQ(t.turns[i].feedback, it->second.turns[i].feedback) << id;
      }
    }
  }
  // Turns recorded before the kill are not asked again; at most the calls in flight are.
  int new_calls = calls_made(state) - calls_at_kill;
  EXPECT_LE(new_calls, kRows * kTurns - turns_before + kConcurrency);
  // Replies that arrived before the kill but whose turn was not recorded are not asked again.
  EXPECT_GE(new_calls, kRows * kTurns - turns_before - kConcurrency);
  auto repairs = FixitFolder::open(folder_path)->read_repairs();
  ASSERT_TRUE(repairs) << repairs.error().message;
  EXPECT_EQ(repairs->size(), static_cast<std::size_t>(kRows));
  for (const auto& row : *repairs) EXPECT_EQ(row.status, RepairStatus::kNotRepaired);
}

// A teacher command that does not exist is refused before any row is sent: a usage error that
// names it, not an exit 0 with every row "not repaired".
TEST(RepairKill, AMissingTeacherSaysWhy) {
  util::TempDir work;
  const fs::path folder_path = work.path() / "fixit";
  {
    auto folder = FixitFolder::open(folder_path);
    ASSERT_TRUE(folder);
    folder->write_mined(
        {testing::mined_row("gemm_n7168_k5120", eval::Verdict::kCompileError, 1, 0)});
  }
  util::SystemProcessRunner runner;
  auto result = runner.run(
      {.argv = {PTXBENCH_EXE, "fixit", "repair", "--fixit", folder_path.string(),
                "--teacher-command", (work.path() / "no-such-teacher").string(), "--no-gpu"},
       .timeout = std::chrono::seconds(120)});
  ASSERT_TRUE(result.started) << result.spawn_error;
  EXPECT_EQ(result.exit_code, 2) << result.stdout_text << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("no-such-teacher: no such executable"), std::string::npos)
      << result.stderr_text;
  auto repairs = FixitFolder::open(folder_path)->read_repairs();
  ASSERT_TRUE(repairs) << repairs.error().message;
  EXPECT_TRUE(repairs->empty()) << "a row was sent to a teacher that cannot run";
}

// `--teacher-command` is one command line read as a shell reads it: a quoted path with a space
// is one word, and an unterminated quote is a usage error before anything runs.
TEST(RepairKill, TheTeacherCommandIsReadAsAShellReadsIt) {
  util::TempDir work;
  const fs::path folder_path = work.path() / "fixit";
  const fs::path state = work.path() / "state";
  const fs::path teacher = work.path() / "my teachers" / "teacher.sh";
  fs::create_directories(state);
  fs::create_directories(teacher.parent_path());
  fs::copy_file(fs::path(PTXBENCH_TEST_DATA_DIR) / "slow_teacher.sh", teacher);
  {
    auto folder = FixitFolder::open(folder_path);
    ASSERT_TRUE(folder);
    folder->write_mined(
        {testing::mined_row("gemm_n7168_k5120", eval::Verdict::kCompileError, 1, 0)});
  }
  util::SystemProcessRunner runner;
  auto repair = [&](const std::string& command_line) {
    return runner.run({.argv = {PTXBENCH_EXE, "fixit", "repair", "--fixit", folder_path.string(),
                                "--teacher-command", command_line, "--turns", "1", "--no-gpu"},
                       .timeout = std::chrono::seconds(120),
                       .env = {{"PTXBENCH_TEST_STATE", state.string()}}});
  };
  auto refused = repair("sh 'teacher.sh");
  EXPECT_EQ(refused.exit_code, 2) << refused.describe_end();
  EXPECT_NE(refused.stderr_text.find(
                "ptxbench fixit repair: --teacher-command: a single quote is not closed"),
            std::string::npos)
      << refused.stderr_text;
  EXPECT_EQ(calls_made(state), 0);

  auto result = repair("sh " + util::shell_quoted(teacher.string()));
  ASSERT_TRUE(result.succeeded()) << result.describe_end() << "\n" << result.stderr_text;
  EXPECT_EQ(calls_made(state), 1);
  EXPECT_NE(result.stdout_text.find("with teacher teacher:"), std::string::npos)
      << result.stdout_text;
}

}  // namespace
}  // namespace ptxbench::fixit
