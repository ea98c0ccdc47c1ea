// Hand-made trajectories for the report tests: a compact description of each turn (verdict,
// speedup, whether a requested family executed) becomes a real agent::Trajectory with real
// eval::Evaluation values, written with the agent's own to_json so the files follow
// docs/trajectory-format.md exactly.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/eval/evaluation.hpp"

namespace ptxbench::report::testing {

struct TurnSpec {
  eval::Verdict verdict = eval::Verdict::kPassed;
  std::optional<double> speedup;         // headline workload, when timed
  std::optional<double> speed_of_light;  // its fraction of the speed of light, when bounded
  bool family_executed = true;           // a requested family executed (count > 0)
  std::string compile_log;               // for COMPILE_ERROR
  std::string compile_message;           // the compile stage's one-line reason
  // The machine had a GPU of the arch; false: the GPU stages were not run (NOT_RUN always is).
  bool gpu = true;
  int turn = 0;  // 0: position + 1
  std::optional<std::int64_t> prompt_tokens = 1000;
  std::optional<std::int64_t> completion_tokens = 400;
  std::optional<std::int64_t> reasoning_tokens;
  double latency_s = 10;
  std::optional<double> cost_usd;
};

struct TrajectorySpec {
  std::string model = "model-a";
  std::string task = "gemm_n7168_k5120";
  arch::Arch arch = arch::Arch::kHopper;
  prompt::ContextLevel context = prompt::ContextLevel::kNone;
  int sample = 0;
  std::string split = "train";
  int max_turns = 8;
  std::vector<TurnSpec> turns;
};

eval::Evaluation make_evaluation(const std::string& task, arch::Arch arch, const TurnSpec& turn);
agent::Trajectory make_trajectory(const TrajectorySpec& spec);

// RUN_DIR/run.json and RUN_DIR/trajectories/<id>.json.
void write_run(const std::filesystem::path& dir,
               const std::vector<agent::Trajectory>& trajectories);

// A two-run sample for end-to-end tests and for looking at the page: run "base" (model-a at
// context levels none and isa) and run "tuned" (model-a-tuned at none), each on two train tasks
// and one held-out task on hopper, 6 samples of up to 8 turns with varied outcomes. Returns the
// two run directories. Deterministic.
std::vector<std::filesystem::path> write_sample_runs(const std::filesystem::path& root);

// The published results of the original research, which are not part of the repository:
// $PTXBENCH_PUBLISHED_DIR, else ../shared/published/ptxbench-2026 beside the source tree.
std::optional<std::filesystem::path> shared_published_dir();

// Markup a model might write, to show it is displayed as text and never run: a script, a
// textarea end, an image whose error handler and an anchor that would mark the page's body
// data-pwned="1" if any of it executed.
inline constexpr std::string_view kHostileMarkup =
    "</textarea></pre><script>document.body.setAttribute('data-pwned','1')</script>"
    "<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">";

// A two-turn trajectory whose model name, replies, feedback and compile log all carry
// kHostileMarkup; its turn 2 passes with kernels as launched, families with FLOP shares, a timed
// workload with its speed of light, tokens and cost, so every part of a viewer page has content.
agent::Trajectory make_hostile_trajectory();

// A Fixit folder with one mined failure and its repair, verification and explanation (the
// failure's feedback carries kHostileMarkup): FIXIT/{mined,repairs,verified,explained}.jsonl.
void write_sample_fixit(const std::filesystem::path& dir);

// Shorthands for turn lists.
TurnSpec passed(double speedup);
TurnSpec fails(eval::Verdict verdict);

}  // namespace ptxbench::report::testing
