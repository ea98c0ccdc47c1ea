#include "trajectory_builder.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <tuple>

#include "ptxbench/config.hpp"
#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/fixit/rows.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::report::testing {
namespace {

bool reached_compile(eval::Verdict v) {
  return v != eval::Verdict::kNoCode && v != eval::Verdict::kForbidden;
}

bool compiled(eval::Verdict v) {
  return reached_compile(v) && v != eval::Verdict::kCompileError &&
         v != eval::Verdict::kInternalError;
}

}  // namespace

eval::Evaluation make_evaluation(const std::string& task, arch::Arch arch, const TurnSpec& turn) {
  eval::Evaluation e;
  e.task = task;
  e.arch = arch;
  e.verdict = turn.verdict;
  e.message = std::string(eval::to_string(turn.verdict));
  e.created_at = "2026-01-01T00:00:00Z";
  e.stage(eval::Stage::kExtract).status = turn.verdict == eval::Verdict::kNoCode
                                              ? eval::StageStatus::kFailed
                                              : eval::StageStatus::kPassed;
  if (reached_compile(turn.verdict)) {
    auto& compile = e.stage(eval::Stage::kCompile);
    compile.status =
        compiled(turn.verdict) ? eval::StageStatus::kPassed : eval::StageStatus::kFailed;
    compile.message = turn.compile_message;
    e.compile.log = turn.compile_log;
  }
  if (!turn.gpu || turn.verdict == eval::Verdict::kNotRun) {
    for (auto stage : {eval::Stage::kSanitize, eval::Stage::kCorrectness, eval::Stage::kDynamicSass,
                       eval::Stage::kTiming})
      e.stage(stage).status = eval::StageStatus::kNotRun;
  }
  const bool correct = eval::is_correct(turn.verdict);
  e.families.push_back(eval::FamilyEvidence{
      .family = "GMMA",
      .requested = true,
      .static_count = 4,
      .executed_count =
          correct ? std::optional<std::int64_t>(turn.family_executed ? 4096 : 0) : std::nullopt,
      .flop_share = correct && turn.family_executed ? std::optional<double>(0.9) : std::nullopt,
      .substantial = turn.verdict == eval::Verdict::kPassed});
  e.families.push_back(eval::FamilyEvidence{
      .family = "TMA", .requested = true, .static_count = 2, .executed_count = std::nullopt});
  if (compiled(turn.verdict)) {
    e.workloads.push_back(eval::WorkloadResult{.workload = "M8192",
                                               .headline = true,
                                               .status = turn.verdict,
                                               .trials = 3,
                                               .speedup = turn.speedup});
    if (turn.speed_of_light) {
      e.workloads.back().speed_of_light =
          eval::SpeedOfLight{.bound_ms = 1.0, .fraction = *turn.speed_of_light};
    }
  }
  return e;
}

agent::Trajectory make_trajectory(const TrajectorySpec& spec) {
  agent::Trajectory t;
  t.info.id = agent::trajectory_id(spec.model, spec.task, spec.arch, spec.context, spec.sample);
  t.info.model = spec.model;
  t.info.provider = "replay";
  t.info.task = spec.task;
  t.info.arch = spec.arch;
  t.info.context_level = spec.context;
  t.info.sample = spec.sample;
  t.info.split = spec.split;
  t.info.max_turns = spec.max_turns;
  t.info.status = agent::TrajectoryStatus::kFinished;
  t.info.exit_status = std::string(agent::exit_status::kMaxTurns);
  t.info.ptxbench_version = "0.1.0";
  t.messages.push_back({.role = "system", .content = "You write CUDA kernels."});
  t.messages.push_back({.role = "user", .content = "Write the kernel for " + spec.task});
  for (std::size_t i = 0; i < spec.turns.size(); ++i) {
    const TurnSpec& turn = spec.turns[i];
    const int number = turn.turn > 0 ? turn.turn : static_cast<int>(i) + 1;
    t.messages.push_back(
        {.role = "assistant", .content = "```cuda\n// kernel\n```", .turn = number});
    t.messages.push_back({.role = "user", .content = "feedback", .turn = number});
    t.turns.push_back(agent::TurnRecord{.turn = number,
                                        .usage = {.prompt_tokens = turn.prompt_tokens,
                                                  .completion_tokens = turn.completion_tokens,
                                                  .reasoning_tokens = turn.reasoning_tokens},
                                        .latency_s = turn.latency_s,
                                        .cost_usd = turn.cost_usd,
                                        .evaluation = make_evaluation(spec.task, spec.arch, turn),
                                        .feedback = "feedback"});
  }
  return t;
}

void write_run(const std::filesystem::path& dir,
               const std::vector<agent::Trajectory>& trajectories) {
  std::filesystem::create_directories(dir / "trajectories");
  util::write_file_atomic(dir / "run.json", R"({"name": "test run"})");
  for (const auto& t : trajectories) {
    util::write_file_atomic(dir / "trajectories" / (t.info.id + ".json"),
                            agent::to_json(t).dump(1));
  }
}

namespace {

// Outcomes of one trajectory: skill is the chance per turn of a correct kernel; failures cycle
// through the taxonomy so every category appears somewhere.
std::vector<TurnSpec> sample_turns(std::mt19937& rng, double skill, double speed) {
  static const std::vector<std::pair<eval::Verdict, const char*>> kFailures{
      {eval::Verdict::kCompileError, "k.cu(12): error: expected a \";\""},
      {eval::Verdict::kCompileError, "k.cu(40): error: identifier \"wgmma_fence\" is undefined"},
      {eval::Verdict::kCompileError, "ptxas /tmp/k.ptx, line 9; error   : Unknown modifier '.sp'"},
      {eval::Verdict::kIncorrectNumerical, ""},
      {eval::Verdict::kRuntimeError, ""},
      {eval::Verdict::kNoCode, ""},
      {eval::Verdict::kTimeout, ""},
      {eval::Verdict::kIncorrectShape, ""},
  };
  auto uniform = [&rng] { return static_cast<double>(rng()) / 4294967296.0; };
  std::vector<TurnSpec> turns;
  double best = 0;
  for (int turn = 1; turn <= 8; ++turn) {
    TurnSpec spec;
    spec.prompt_tokens = 3000 + 1500 * turn;
    spec.completion_tokens = 2000 + static_cast<std::int64_t>(rng() % 3000);
    spec.reasoning_tokens = spec.completion_tokens.value_or(0) / 2;
    spec.latency_s = 20 + static_cast<double>(rng() % 40);
    if (uniform() < skill) {
      best = std::max(best, speed * (0.4 + 0.9 * uniform()));
      const bool strict = uniform() < 0.6;
      spec.verdict = strict ? eval::Verdict::kPassed : eval::Verdict::kInstructionsNotExecuted;
      spec.family_executed = strict || uniform() < 0.5;
      spec.speedup = best;
      turns.push_back(spec);
      if (strict && best > 1.0) break;  // target reached: the trajectory stops early
    } else {
      const auto& [verdict, log] = kFailures[rng() % kFailures.size()];
      spec.verdict = verdict;
      spec.compile_log = log;
      turns.push_back(spec);
    }
  }
  return turns;
}

}  // namespace

std::vector<std::filesystem::path> write_sample_runs(const std::filesystem::path& root) {
  struct Variant {
    std::string run;
    std::string model;
    prompt::ContextLevel context;
    double skill;
  };
  const std::vector<Variant> variants{{"base", "model-a", prompt::ContextLevel::kNone, 0.15},
                                      {"base", "model-a", prompt::ContextLevel::kIsa, 0.3},
                                      {"tuned", "model-a-tuned", prompt::ContextLevel::kNone, 0.4}};
  const std::vector<std::tuple<std::string, std::string, double>> tasks{
      {"gemm_n7168_k5120", "train", 1.0},
      {"mha_fwd_lse_d128", "train", 0.6},
      {"mha_fwd_lse_d96", "heldout", 0.5}};
  std::map<std::string, std::vector<agent::Trajectory>> runs;
  std::uint32_t seed = 1;
  for (const auto& v : variants) {
    for (const auto& [task, split, speed] : tasks) {
      for (int sample = 0; sample < 6; ++sample) {
        std::mt19937 rng(seed++);
        const double skill = split == "heldout" ? v.skill * 0.6 : v.skill;
        runs[v.run].push_back(make_trajectory({.model = v.model,
                                               .task = task,
                                               .context = v.context,
                                               .sample = sample,
                                               .split = split,
                                               .turns = sample_turns(rng, skill, speed)}));
      }
    }
  }
  std::vector<std::filesystem::path> dirs;
  for (const auto& [name, trajectories] : runs) {
    dirs.push_back(root / name);
    write_run(dirs.back(), trajectories);
  }
  return dirs;
}

agent::Trajectory make_hostile_trajectory() {
  const std::string markup(kHostileMarkup);
  TrajectorySpec spec{.model = "model-<b>bold</b>",
                      .task = "gemm_n7168_k5120",
                      .context = prompt::ContextLevel::kIsa,
                      .turns = {fails(eval::Verdict::kCompileError), passed(1.25)}};
  spec.turns[0].compile_log = "k.cu(3): error: " + markup;
  spec.turns[1].speed_of_light = 0.61;
  spec.turns[1].cost_usd = 0.0123;
  agent::Trajectory t = make_trajectory(spec);
  t.messages[0].content = "You write CUDA kernels. " + markup;
  t.messages[2].content =
      "First try " + markup + "\n```cuda\n__global__ void k(float* out) { out[0] = 1.0f; }\n```\n";
  t.messages[3].content = "Compile error, exactly as sent: " + markup;
  t.messages[4].content = "Second try\n```cuda\n// fixed " + markup +
                          "\n__global__ void k(float* out) { out[threadIdx.x] = 2.0f; }\n```\n";
  auto& e = t.turns[1].evaluation;
  e.kernels.push_back(
      eval::KernelReport{.name = "_Z1kPf",
                         .display_name = "k(float*)",
                         .registers = 168,
                         .shared_bytes = 1024,
                         .executed_families = {{"GMMA", 4096}},
                         .launched = eval::LaunchResources{.launches = 20,
                                                           .registers_per_thread = 168,
                                                           .static_shared_bytes = 1024,
                                                           .dynamic_shared_bytes = 229376,
                                                           .grid = {132, 1, 1},
                                                           .block = {384, 1, 1}}});
  t.turns[0].feedback = t.messages[3].content;
  return t;
}

void write_sample_fixit(const std::filesystem::path& dir) {
  fixit::MinedRow mined{
      .id = "m-1",
      .source = {.run = "runs/base", .trajectory = "t1", .turn = 2, .model = "model-a"},
      .task = "gemm_n7168_k5120",
      .verdict = eval::Verdict::kIncorrectNumerical,
      .code = "__global__ void k() { bad(); }\n",
      .feedback = "max abs error 3.5 " + std::string(kHostileMarkup),
      .error_text = "INCORRECT_NUMERICAL: out differs"};
  fixit::RepairRow repair{.mined_id = "m-1",
                          .teacher = "teacher-x",
                          .status = fixit::RepairStatus::kRepaired,
                          .turns = 1,
                          .chosen_turn = 1,
                          .code = "__global__ void k() { good(); }\n"};
  repair.evaluation.verdict = eval::Verdict::kPassed;
  fixit::VerifiedRow verified{
      .mined_id = "m-1", .status = fixit::VerifyStatus::kVerified, .reason = "PASSED on the GPU"};
  verified.evaluation.verdict = eval::Verdict::kPassed;
  fixit::ExplainedRow explained{.mined_id = "m-1",
                                .explainer = "teacher-x",
                                .length_bin = "short",
                                .reasoning = "bad() reads past the tile",
                                .attempts = 1};
  std::filesystem::create_directories(dir);
  util::write_file_atomic(dir / "mined.jsonl", fixit::to_json(mined).dump() + "\n");
  util::write_file_atomic(dir / "repairs.jsonl", fixit::to_json(repair).dump() + "\n");
  util::write_file_atomic(dir / "verified.jsonl", fixit::to_json(verified).dump() + "\n");
  util::write_file_atomic(dir / "explained.jsonl", fixit::to_json(explained).dump() + "\n");
}

std::optional<std::filesystem::path> shared_published_dir() {
  if (const char* env = std::getenv("PTXBENCH_PUBLISHED_DIR"); env && *env) {
    return std::filesystem::path(env);
  }
  const auto dir =
      std::filesystem::path(config::kSourceDir) / ".." / "shared" / "published" / "ptxbench-2026";
  std::error_code error;
  if (std::filesystem::is_directory(dir, error)) return dir.lexically_normal();
  return std::nullopt;
}

TurnSpec passed(double speedup) {
  return TurnSpec{.verdict = eval::Verdict::kPassed, .speedup = speedup};
}

TurnSpec fails(eval::Verdict verdict) {
  return TurnSpec{.verdict = verdict};
}

}  // namespace ptxbench::report::testing
