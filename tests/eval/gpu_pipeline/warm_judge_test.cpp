// The warm judge (warm_judge.hpp, warm_correctness_step.cpp) against the fake worker's
// judge-server and trials modes: one judge outlives the verdicts, one candidate process per
// verdict runs every trial in the shared sets, every ending reads as with fresh judges, the
// reference cache answers recurring trials, and a judge that dies is started again.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ptxbench/eval/gpu_pipeline/stage_sequence.hpp"
#include "ptxbench/eval/gpu_pipeline/warm_judge.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval::gpu_pipeline {
namespace {

task::Task gemm_task() {
  task::Task t;
  t.name = "gemm_fake";
  t.op_type = task::OpType::kGemm;
  t.family = "gemm";
  t.baseline = task::Baseline::kCublasLtGemmBf16Nt;
  t.axes = {{.name = "M"},
            {.name = "N", .is_const = true, .value = 5},
            {.name = "K", .is_const = true, .value = 3}};
  t.inputs = {{.name = "A", .shape = {"M", "K"}}, {.name = "B", .shape = {"N", "K"}}};
  t.outputs = {{.name = "C", .shape = {"M", "N"}}};
  t.workloads = {{.name = "M4", .axes = {{"M", 4}}, .seed = 1, .headline = false},
                 {.name = "M8", .axes = {{"M", 8}}, .seed = 2, .headline = true}};
  return t;
}

class WarmJudgeTest : public ::testing::Test {
 protected:
  StageSequenceOptions options(JudgeSettings settings = {}) const {
    settings.mode = JudgeMode::kWarm;
    return StageSequenceOptions{.worker = FAKE_WORKER_PATH,
                                .cache_dir = dir_.path() / "cache",
                                .exchange_root = dir_.path(),
                                .settings = settings,
                                .candidate_timeout = std::chrono::seconds(3),
                                .timing_timeout = std::chrono::seconds(3),
                                .sanitize = false,
                                .prove_execution = false,
                                .worker_env = {{"FAKE_WORKER_LOG", log().string()}}};
  }
  std::filesystem::path log() const { return dir_.path() / "worker.log"; }

  Evaluation evaluate(StageSequence& stages, const std::string& behaviour,
                      std::uint64_t seed = 11) const {
    Evaluation e;
    e.arch = arch::Arch::kHopper;
    e.input_seed = seed;
    stages.run(task_, CompiledCandidate{.shared_object = "/nowhere/" + behaviour + ".so"}, e);
    return e;
  }

  int log_lines(const std::string& mode) const {
    auto text = util::read_file(log());
    if (!text) return 0;
    int n = 0;
    for (std::size_t at = 0; (at = text->find(mode + " ", at)) != std::string::npos; ++at) {
      if (at == 0 || (*text)[at - 1] == '\n') ++n;
    }
    return n;
  }

  task::Task task_ = gemm_task();
  util::TempDir dir_{"ptxbench-warm-judge-"};
};

TEST_F(WarmJudgeTest, OneJudgeOutlivesTheVerdictsAndEachHasOneCandidateProcess) {
  StageSequence stages(options(), std::make_shared<util::SystemProcessRunner>());
  for (int i = 0; i < 3; ++i) {
    const Evaluation e = evaluate(stages, "pass");
    ASSERT_EQ(e.verdict, Verdict::kPassed) << e.message;
    EXPECT_EQ(e.judge, "warm (host exchange)");
    const StageRecord* correctness = e.find_stage(Stage::kCorrectness);
    // The first verdict started the judge and its candidate; the later ones only a candidate.
    EXPECT_EQ(correctness->processes, i == 0 ? 2 : 1) << i;
    EXPECT_GT(correctness->parts.count("process"), 0u);
    ASSERT_EQ(e.workloads.size(), 2u);
    EXPECT_EQ(e.workloads[1].trials, 3);
  }
  EXPECT_EQ(log_lines("judge"), 3);   // three sessions ...
  EXPECT_EQ(log_lines("trials"), 3);  // ... each with its own candidate process
}

struct Ending {
  const char* behaviour;
  Verdict verdict;
  const char* message_part;
};

class WarmJudgeEndings : public WarmJudgeTest, public ::testing::WithParamInterface<Ending> {};

// The same endings and messages as with fresh judges (stage_sequence_test.cpp), then the next
// candidate passes with the same judge.
TEST_P(WarmJudgeEndings, ReadAsWithFreshJudgesAndTheJudgeCarriesOn) {
  StageSequence stages(options(), std::make_shared<util::SystemProcessRunner>());
  const Ending& want = GetParam();
  const auto start = std::chrono::steady_clock::now();
  const Evaluation bad = evaluate(stages, want.behaviour);
  EXPECT_EQ(bad.verdict, want.verdict) << bad.message;
  EXPECT_NE(bad.message.find(want.message_part), std::string::npos) << bad.message;
  EXPECT_EQ(bad.find_stage(Stage::kCorrectness)->status, StageStatus::kFailed);
  EXPECT_EQ(bad.find_stage(Stage::kTiming)->status, StageStatus::kSkipped);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  const Evaluation good = evaluate(stages, "pass");
  EXPECT_EQ(good.verdict, Verdict::kPassed) << good.message;
  EXPECT_EQ(good.find_stage(Stage::kCorrectness)->processes, 1);  // the same judge
}

INSTANTIATE_TEST_SUITE_P(
    EveryEnding, WarmJudgeEndings,
    ::testing::Values(Ending{"crash", Verdict::kRuntimeError, "signal"},
                      Ending{"abort", Verdict::kRuntimeError, "signal"},
                      Ending{"hang", Verdict::kTimeout, "killed after"},
                      Ending{"garbage", Verdict::kRuntimeError, "without a reply"},
                      Ending{"exit", Verdict::kRuntimeError, "exit 3"},
                      Ending{"raise", Verdict::kRuntimeError, "boom"},
                      Ending{"wrong", Verdict::kIncorrectNumerical, "output C"},
                      Ending{"unwritten", Verdict::kIncorrectShape, "never written"},
                      Ending{"modify", Verdict::kInputsModified, "input(s) A"}),
    [](const auto& param_info) { return std::string(param_info.param.behaviour); });

TEST_F(WarmJudgeTest, TheJudgesMemoryAnswersRecurringTrials) {
  StageSequence stages(options({.reference_cache = true}),
                       std::make_shared<util::SystemProcessRunner>());
  auto counts = [&](std::uint64_t seed) {
    const Evaluation e = evaluate(stages, "pass", seed);
    EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
    return e.find_stage(Stage::kCorrectness)->reference_cache.value_or(CacheCounts{99, 99});
  };
  const CacheCounts first = counts(4242);
  EXPECT_EQ(first.hits, 0u);
  EXPECT_EQ(first.misses, 6u);  // 2 workloads x 3 trials
  const CacheCounts again = counts(4242);
  EXPECT_EQ(again.hits, 6u);
  EXPECT_EQ(again.misses, 0u);
  EXPECT_EQ(counts(77).misses, 6u);  // other seeds, other trials
}

TEST_F(WarmJudgeTest, UnseenWorkloadsAreJudgedApartAndByPolicy) {
  task_.unseen.bounds["M"] = {1, 12};
  StageSequence required(options(), std::make_shared<util::SystemProcessRunner>());
  const Evaluation failed = evaluate(required, "wrong_unseen");
  EXPECT_EQ(failed.verdict, Verdict::kIncorrectNumerical) << failed.message;
  EXPECT_EQ(failed.message.find("unseen_"), std::string::npos) << failed.message;
  ASSERT_TRUE(failed.generalisation.has_value());
  EXPECT_EQ(failed.generalisation->shown_passed, 2);
  EXPECT_EQ(failed.generalisation->unseen_passed, 0);
  StageSequence reported(options({.unseen = correctness::UnseenPolicy::kReport}),
                         std::make_shared<util::SystemProcessRunner>());
  const Evaluation kept = evaluate(reported, "wrong_unseen");
  EXPECT_EQ(kept.verdict, Verdict::kPassed) << kept.message;
  ASSERT_TRUE(kept.generalisation.has_value());
  EXPECT_EQ(kept.generalisation->unseen_total, 4);
  const Evaluation crashed = evaluate(reported, "crash");
  EXPECT_EQ(crashed.verdict, Verdict::kRuntimeError) << crashed.message;
}

// A judge that fails costs the candidate nothing: the fresh judges decide its verdict, the record
// says why, and the next verdict starts a new warm judge.
TEST_F(WarmJudgeTest, AJudgeThatFailsHandsItsVerdictToFreshJudgesAndIsStartedAgain) {
  StageSequence stages(options(), std::make_shared<util::SystemProcessRunner>());
  ASSERT_EQ(evaluate(stages, "pass").verdict, Verdict::kPassed);
  const Evaluation lost = evaluate(stages, "kill_judge");
  EXPECT_EQ(lost.verdict, Verdict::kPassed) << lost.message;
  EXPECT_TRUE(lost.judge.starts_with("fresh (the warm judge failed: judge: ")) << lost.judge;
  ASSERT_EQ(lost.workloads.size(), 2u);  // judged once, by the fresh judges
  const Evaluation next = evaluate(stages, "pass");
  EXPECT_EQ(next.verdict, Verdict::kPassed) << next.message;
  EXPECT_EQ(next.judge, "warm (host exchange)");
  EXPECT_EQ(next.find_stage(Stage::kCorrectness)->processes, 2);  // a new judge, a candidate
}

// A judge that fails verdict after verdict is set aside: the slot judges fresh from then on, and
// every record says so.
TEST_F(WarmJudgeTest, AJudgeThatKeepsFailingIsSetAside) {
  StageSequence stages(options(), std::make_shared<util::SystemProcessRunner>());
  for (int i = 0; i < kWarmJudgeFailures; ++i) {
    const Evaluation e = evaluate(stages, "kill_judge");
    EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
    EXPECT_TRUE(e.judge.starts_with("fresh (the warm judge failed")) << e.judge;
  }
  const Evaluation after = evaluate(stages, "pass");
  EXPECT_EQ(after.verdict, Verdict::kPassed) << after.message;
  EXPECT_TRUE(after.judge.starts_with("fresh (the warm judge is off: 3 verdicts in a row"))
      << after.judge;
  EXPECT_EQ(log_lines("trials"), kWarmJudgeFailures);  // no warm session after the third
}

// A candidate process that cannot map the judge's device memory: the session moves to shared
// host memory, later ones start there, and every record says why.
TEST_F(WarmJudgeTest, DeviceMemoryACandidateCannotMapFallsBackToTheHost) {
  StageSequenceOptions refusing = options();
  refusing.worker_env.emplace_back("FAKE_DEVICE_EXCHANGE", "1");
  refusing.worker_env.emplace_back("FAKE_REFUSE_DEVICE", "1");
  StageSequence stages(refusing, std::make_shared<util::SystemProcessRunner>());
  for (int i = 0; i < 2; ++i) {
    const Evaluation e = evaluate(stages, "pass");
    EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
    EXPECT_EQ(e.judge, "warm (host exchange: cuMemImportFromShareableHandle: refused)") << i;
  }
  EXPECT_EQ(log_lines("trials"), 2);  // the refused candidate never reached its trials
}

// Timing runs in a process started when the shared stages passed; with no NVML here the window's
// company is not known, and the record says so rather than claiming the GPU was alone.
TEST_F(WarmJudgeTest, TheTimedWindowSaysWhatIsKnownOfItsCompany) {
  StageSequence stages(options(), std::make_shared<util::SystemProcessRunner>());
  const Evaluation e = evaluate(stages, "pass");
  ASSERT_EQ(e.verdict, Verdict::kPassed) << e.message;
  const WorkloadResult& headline = e.workloads[1];
  ASSERT_TRUE(headline.timing_window.has_value());
  EXPECT_EQ(headline.timing_window->attempts, 1);
  if (!headline.timing_window->alone) {
    EXPECT_FALSE(headline.timing_window->note.empty());
  }
  EXPECT_EQ(e.find_stage(Stage::kTiming)->processes, 1);
}

}  // namespace
}  // namespace ptxbench::eval::gpu_pipeline
