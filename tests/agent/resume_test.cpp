// `ptxbench run` killed with SIGKILL in the middle of a run, then rerun with the same command:
// the trajectory set is complete, every turn is recorded exactly once, in order, and the turns
// recorded before the kill are unchanged.
#include <gtest/gtest.h>

#include <csignal>
#include <map>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::agent {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr int kSamples = 3;
constexpr int kTurns = 3;
constexpr int kTrajectories = 2 * kSamples;  // two archs

std::map<std::string, Trajectory> read_trajectories(const fs::path& run_dir) {
  std::map<std::string, Trajectory> out;
  if (!fs::exists(run_dir / "trajectories")) return out;
  for (const auto& entry : fs::directory_iterator(run_dir / "trajectories")) {
    if (entry.path().filename().string().starts_with(".")) continue;  // a temp file of a write
    auto text = util::read_file(entry.path());
    EXPECT_TRUE(text) << entry.path();
    auto trajectory = trajectory_from_json(Json::parse(*text));
    EXPECT_TRUE(trajectory) << entry.path() << ": " << trajectory.error().message;
    if (trajectory) out[trajectory->info.id] = std::move(*trajectory);
  }
  return out;
}

util::ProcessResult run_ptxbench(const fs::path& run_dir, const fs::path& state, int kill_at) {
  util::SystemProcessRunner runner;
  std::string script = (fs::path(PTXBENCH_TEST_DATA_DIR) / "slow_model.sh").string();
  return runner.run({.argv = {PTXBENCH_EXE,    "run",
                              "--model",       "slow",
                              "--provider",    "command",
                              "--command",     "sh " + script,
                              "--tasks",       "gemm_n7168_k5120",
                              "--archs",       "hopper,blackwell",
                              "--contexts",    "none",
                              "--samples",     std::to_string(kSamples),
                              "--turns",       std::to_string(kTurns),
                              "--out",         run_dir.string(),
                              "--no-gpu",      "--all-turns",
                              "--concurrency", "2",
                              "--parallel",    "2",
                              "--timeout-s",   "60"},
                     .timeout = std::chrono::seconds(300),
                     .env = {{"PTXBENCH_TEST_STATE", state.string()},
                             {"PTXBENCH_TEST_KILL_AT", std::to_string(kill_at)}}});
}

TEST(Resume, KilledRunResumesWithoutLosingOrDuplicatingTurns) {
  util::TempDir work;
  fs::path run_dir = work.path() / "run";
  fs::path state = work.path() / "state";
  fs::create_directories(state);

  // The 8th model call kills ptxbench while other trajectories are being evaluated or written.
  util::ProcessResult killed = run_ptxbench(run_dir, state, 8);
  ASSERT_TRUE(killed.started) << killed.spawn_error;
  ASSERT_EQ(killed.term_signal, SIGKILL)
      << "the run was not killed: " << killed.describe_end() << "\n"
      << killed.stderr_text;
  auto before = read_trajectories(run_dir);
  int turns_before = 0;
  for (const auto& [id, t] : before) turns_before += t.completed_turns();
  ASSERT_LT(turns_before, kTrajectories * kTurns)
      << "the kill came after the end: nothing to resume";
  ASSERT_GT(turns_before, 0) << "the kill came before any turn was recorded";

  util::ProcessResult resumed = run_ptxbench(run_dir, state, 1'000'000);
  ASSERT_TRUE(resumed.succeeded()) << resumed.describe_end() << "\n" << resumed.stderr_text;
  EXPECT_NE(resumed.stderr_text.find("to resume"), std::string::npos) << resumed.stderr_text;

  auto after = read_trajectories(run_dir);
  ASSERT_EQ(after.size(), static_cast<std::size_t>(kTrajectories));
  for (const auto& [id, t] : after) {
    EXPECT_EQ(t.info.status, TrajectoryStatus::kFinished) << id;
    ASSERT_EQ(t.completed_turns(), kTurns) << id;
    ASSERT_EQ(t.messages.size(), 2u + 2 * kTurns) << id;
    for (int turn = 1; turn <= kTurns; ++turn) {
      const TurnRecord& record = t.turns[static_cast<std::size_t>(turn - 1)];
      EXPECT_EQ(record.turn, turn) << id;
      EXPECT_EQ(record.evaluation.verdict, eval::Verdict::kNoCode) << id;
      // The reply recorded for a turn is the one the model gave for that turn.
      const TrajectoryMessage& reply = t.messages[static_cast<std::size_t>(2 * turn)];
      EXPECT_EQ(reply.turn, turn);
      EXPECT_NE(reply.content.find(id + " turn " + std::to_string(turn) + "."), std::string::npos)
          << reply.content;
      EXPECT_TRUE(
          fs::exists(run_dir / "responses" / id / ("turn-" + std::to_string(turn) + ".md")));
    }
    // What was recorded before the kill is still there, unchanged.
    if (auto it = before.find(id); it != before.end()) {
      for (std::size_t i = 0; i < it->second.turns.size(); ++i) {
        EXPECT_EQ(eval::to_json(t.turns[i].evaluation),
                  eval::to_json(it->second.turns[i].evaluation));
        EXPECT_EQ(t.turns[i].feedback, it->second.turns[i].feedback);
      }
    }
  }
  auto run_json = Json::parse(*util::read_file(run_dir / "run.json"));
  EXPECT_EQ(run_json["sessions"].size(), 2u);
}

}  // namespace
}  // namespace ptxbench::agent
