// StageSequence against a fake worker (fake_worker.cpp): every way a worker process can end
// must give the right verdict, and the next candidate must evaluate normally.
#include "ptxbench/eval/gpu_pipeline/stage_sequence.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval::gpu_pipeline {
namespace {

task::Task small_gemm_task() {
  task::Task t;
  t.name = "gemm_fake";
  t.op_type = ptxbench::task::OpType::kGemm;
  t.family = "gemm";
  t.baseline = ptxbench::task::Baseline::kCublasLtGemmBf16Nt;
  t.axes = {{.name = "M"},
            {.name = "N", .is_const = true, .value = 5},
            {.name = "K", .is_const = true, .value = 3}};
  t.inputs = {{.name = "A", .shape = {"M", "K"}}, {.name = "B", .shape = {"N", "K"}}};
  t.outputs = {{.name = "C", .shape = {"M", "N"}}};
  t.workloads = {{.name = "M4", .axes = {{"M", 4}}, .seed = 1, .headline = false},
                 {.name = "M8", .axes = {{"M", 8}}, .seed = 2, .headline = true}};
  return t;
}

class StageSequenceTest : public ::testing::Test {
 protected:
  StageSequenceTest()
      : exchange_("ptxbench-test-exchange-"),
        stages_(StageSequenceOptions{.worker = FAKE_WORKER_PATH,
                                       .cache_dir = exchange_.path() / "cache",
                                       .exchange_root = exchange_.path(),
 .settings = {.mode = JudgeMode::kFresh},
                                       .candidate_timeout = std::chrono::seconds(3),
                                       .timing_timeout = std::chrono::seconds(3),
                                       .sanitize = false,
                                       .prove_execution = false},
                std::make_shared<util::SystemProcessRunner>()) {}

  Evaluation evaluate(const std::string& behaviour) {
    Evaluation e;
    e.arch = arch::Arch::kHopper;
    CompiledCandidate candidate{.shared_object = "/nowhere/" + behaviour + ".so"};
    stages_.run(task_, candidate, e);
    return e;
  }

  bool exchange_left_behind() const {
    for (const auto& entry : std::filesystem::directory_iterator(exchange_.path())) {
      if (entry.path().filename().string().rfind("ptxbench-exchange-", 0) == 0) return true;
    }
    return false;
  }

  task::Task task_ = small_gemm_task();
  util::TempDir exchange_;
  StageSequence stages_;
};

TEST_F(StageSequenceTest, AvailabilityComesFromTheWorkersDevice) {
  std::string why;
  EXPECT_TRUE(stages_.available(arch::Arch::kHopper, why)) << why;
  EXPECT_FALSE(stages_.available(arch::Arch::kBlackwell, why));
  EXPECT_NE(why.find("Fake H200"), std::string::npos) << why;
}

// The verdict cache's key names the GPU by the worker's fingerprint, known once it was asked.
TEST_F(StageSequenceTest, TheGpusIdentityComesFromTheWorkersFingerprint) {
  EXPECT_EQ(stages_.identity(), "");
  std::string why;
  ASSERT_TRUE(stages_.available(arch::Arch::kHopper, why)) << why;
  EXPECT_NE(stages_.identity().find("Fake H200|sm_90|driver 0.0"), std::string::npos)
      << stages_.identity();
}

// A seed the engine's front chose (seeded_gpu_stages.hpp) is the verdict's seed.
TEST_F(StageSequenceTest, ASeedChosenBeforeTheGpuStagesIsUsed) {
  std::string why;
  ASSERT_TRUE(stages_.available(arch::Arch::kHopper, why)) << why;
  Evaluation e;
  e.arch = arch::Arch::kHopper;
  e.input_seed = 4242;
  stages_.run(task_, CompiledCandidate{.shared_object = "/nowhere/pass.so"}, e);
  EXPECT_EQ(e.input_seed, 4242u);
}

TEST_F(StageSequenceTest, NoGpuIsNotAvailable) {
  StageSequence stages(StageSequenceOptions{.worker = FAKE_WORKER_PATH,
 .settings = {.mode = JudgeMode::kFresh},
                                                .worker_env = {{"FAKE_WORKER_NO_GPU", "1"}}},
                         std::make_shared<util::SystemProcessRunner>());
  std::string why;
  EXPECT_FALSE(stages.available(arch::Arch::kHopper, why));
  EXPECT_EQ(why, "no GPU");
}

TEST_F(StageSequenceTest, MissingWorkerIsNotAvailable) {
  StageSequence stages(StageSequenceOptions{.worker = "/no/such/ptxbench-worker",
 .settings = {.mode = JudgeMode::kFresh}},
                         std::make_shared<util::SystemProcessRunner>());
  std::string why;
  EXPECT_FALSE(stages.available(arch::Arch::kHopper, why));
  EXPECT_FALSE(why.empty());
}

TEST_F(StageSequenceTest, CorrectCandidatePassesWithTiming) {
  Evaluation e = evaluate("pass");
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  ASSERT_EQ(e.workloads.size(), 2u);
  EXPECT_EQ(e.workloads[1].workload, "M8");
  ASSERT_TRUE(e.workloads[1].speedup.has_value());
  EXPECT_DOUBLE_EQ(*e.workloads[1].speedup, 0.5);
  EXPECT_FALSE(e.workloads[0].speedup.has_value());  // only the headline is timed
  EXPECT_EQ(e.find_stage(Stage::kCorrectness)->status, StageStatus::kPassed);
  EXPECT_EQ(e.find_stage(Stage::kTiming)->status, StageStatus::kPassed);
  EXPECT_EQ(e.find_stage(Stage::kSanitize)->status, StageStatus::kNotRun);
  EXPECT_FALSE(exchange_left_behind());
}

// A scheduler that shares the GPU runs the stages in two calls: together they give the verdict of
// one run, on the seed the shared phase drew; a verdict the shared phase decides ends there.
TEST_F(StageSequenceTest, TheSharedAndExclusivePhasesGiveTheVerdictOfOneRun) {
  CompiledCandidate passing{.shared_object = "/nowhere/pass.so"};
  Evaluation e;
  e.arch = arch::Arch::kHopper;
  ASSERT_TRUE(stages_.run_shared(task_, passing, e)) << e.message;
  ASSERT_TRUE(e.input_seed.has_value());
  const auto seed = *e.input_seed;
  ASSERT_NE(e.find_stage(Stage::kCorrectness), nullptr);
  EXPECT_EQ(e.find_stage(Stage::kCorrectness)->status, StageStatus::kPassed);
  EXPECT_EQ(e.find_stage(Stage::kTiming), nullptr) << "timing ran in the shared phase";
  stages_.run_exclusive(task_, passing, e);
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  EXPECT_EQ(e.input_seed, seed);
  ASSERT_EQ(e.workloads.size(), 2u);
  EXPECT_TRUE(e.workloads[1].speedup.has_value());

  Evaluation wrong;
  wrong.arch = arch::Arch::kHopper;
  EXPECT_FALSE(stages_.run_shared(task_, {.shared_object = "/nowhere/wrong.so"}, wrong));
  EXPECT_EQ(wrong.verdict, Verdict::kIncorrectNumerical) << wrong.message;
}

// The shared phase's device memory grows with the task's largest workload.
TEST_F(StageSequenceTest, TheMemoryNeedGrowsWithTheLargestWorkload) {
  const std::uint64_t small = stages_.shared_memory_need(task_);
  task::Task larger = task_;
  larger.workloads[1].axes["M"] = 1 << 20;
  const std::uint64_t large = stages_.shared_memory_need(larger);
  EXPECT_GT(small, 0u);
  // A grows by 3 bf16 per row of M and C by 5: 16 bytes per extra row, counted four times (more
  // when the unseen workloads derived from the headline grow too).
  EXPECT_GE(large - small, std::uint64_t{4} * 16u * ((1u << 20) - 8u));
}

// Passes every call on to the system and keeps what each asked to write.
class RecordingRunner final : public util::ProcessRunner {
 public:
  util::ProcessResult run(const util::ProcessSpec& spec) override {
    {
      std::lock_guard lock(mutex_);  // the stages call from several threads
      calls.push_back(spec);
    }
    return system_.run(spec);
  }
  std::vector<util::ProcessSpec> calls;

 private:
  std::mutex mutex_;
  util::SystemProcessRunner system_;
};

// The judge's reference cache: the second verdict with the same seeds finds every trial's
// references; only the trusted judge is shown the folder; the parent evicts beyond the budget.
TEST_F(StageSequenceTest, TheReferenceCacheAnswersRecurringTrialsAndOnlyTheJudgeSeesIt) {
  const auto references = exchange_.path() / "references";
  auto runner = std::make_shared<RecordingRunner>();
  StageSequence stages(StageSequenceOptions{.worker = FAKE_WORKER_PATH,
                                                .cache_dir = exchange_.path() / "cache",
                                                .exchange_root = exchange_.path(),
                                                .reference_cache_dir = references,
                                                .settings = {.mode = JudgeMode::kFresh, .reference_cache = true},
                                                .sanitize = false,
                                                .prove_execution = false},
                         runner);
  std::string why;
  ASSERT_TRUE(stages.available(arch::Arch::kHopper, why)) << why;
  auto judge = [&](std::uint64_t seed) {
    Evaluation e;
    e.arch = arch::Arch::kHopper;
    e.input_seed = seed;
    stages.run(task_, CompiledCandidate{.shared_object = "/nowhere/pass.so"}, e);
    EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
    return e.stage(Stage::kCorrectness).reference_cache.value_or(CacheCounts{99, 99});
  };
  const CacheCounts first = judge(4242);
  EXPECT_EQ(first.hits, 0u);
  EXPECT_EQ(first.misses, 6u);  // 2 workloads x 3 trials
  const CacheCounts second = judge(4242);
  EXPECT_EQ(second.hits, 6u);
  EXPECT_EQ(second.misses, 0u);
  EXPECT_EQ(judge(77).misses, 6u);  // other seeds: other trials

  bool judge_saw_it = false;
  for (const auto& spec : runner->calls) {
    const bool trusted_judge = spec.argv.size() > 1 && spec.argv[1] == "judge";
    auto shows = [&](const std::vector<std::filesystem::path>& paths) {
      return std::find(paths.begin(), paths.end(), references) != paths.end();
    };
    const bool shown = shows(spec.read_paths) || shows(spec.write_paths) ||
                       spec.stdin_text.value_or("").find(references.string()) != std::string::npos;
    if (trusted_judge) {
      judge_saw_it = judge_saw_it || shown;
    } else {
      EXPECT_FALSE(shown) << "shown to `" << (spec.argv.size() > 1 ? spec.argv[1] : "") << "`";
    }
  }
  EXPECT_TRUE(judge_saw_it);
}

// A relative cache folder ($PTXBENCH_CACHE_DIR=cache) is handed to the judge absolutely.
TEST_F(StageSequenceTest, ARelativeReferenceCacheFolderWorks) {
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(exchange_.path());
  StageSequence stages(StageSequenceOptions{.worker = FAKE_WORKER_PATH,
                                                .cache_dir = exchange_.path() / "cache",
                                                .exchange_root = exchange_.path(),
                                                .reference_cache_dir = "relative/references",
                                                .settings = {.mode = JudgeMode::kFresh, .reference_cache = true},
                                                .sanitize = false,
                                                .prove_execution = false},
                         std::make_shared<util::SystemProcessRunner>());
  std::string why;
  ASSERT_TRUE(stages.available(arch::Arch::kHopper, why)) << why;
  Evaluation e;
  e.arch = arch::Arch::kHopper;
  e.input_seed = 9;
  stages.run(task_, CompiledCandidate{.shared_object = "/nowhere/pass.so"}, e);
  std::filesystem::current_path(cwd);
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  ASSERT_TRUE(e.stage(Stage::kCorrectness).reference_cache.has_value());
  EXPECT_EQ(e.stage(Stage::kCorrectness).reference_cache->misses, 6u);
  EXPECT_FALSE(std::filesystem::is_empty(exchange_.path() / "relative" / "references"));
}

TEST_F(StageSequenceTest, TheReferenceCacheIsKeptWithinItsBudgetAndOffByDefault) {
  const auto references = exchange_.path() / "references";
  StageSequence stages(StageSequenceOptions{.worker = FAKE_WORKER_PATH,
                                                .cache_dir = exchange_.path() / "cache",
                                                .exchange_root = exchange_.path(),
                                                .reference_cache_dir = references,
                                                .reference_cache_bytes = 1,
                                                .settings = {.mode = JudgeMode::kFresh, .reference_cache = true},
                                                .sanitize = false,
                                                .prove_execution = false},
                         std::make_shared<util::SystemProcessRunner>());
  std::string why;
  ASSERT_TRUE(stages.available(arch::Arch::kHopper, why)) << why;
  Evaluation e;
  e.arch = arch::Arch::kHopper;
  e.input_seed = 5;
  stages.run(task_, CompiledCandidate{.shared_object = "/nowhere/pass.so"}, e);
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  EXPECT_TRUE(std::filesystem::is_empty(references));  // every entry beyond a 1-byte budget
  // The fixture's stages have no cache: nothing counted.
  Evaluation plain = evaluate("pass");
  EXPECT_FALSE(plain.stage(Stage::kCorrectness).reference_cache.has_value());
}

// In a sandbox a process sees only the folders it is given: every worker reads the baseline
// cache (the library's algorithm choice; backward derives its inputs with cuDNN), only the
// trusted judge writes it, and a candidate writes only its exchange folder.
TEST_F(StageSequenceTest, EveryWorkerReadsTheBaselineCacheAndOnlyTheJudgeWritesIt) {
  auto recorder = std::make_shared<RecordingRunner>();
  const auto cache = exchange_.path() / "judge-cache";
  StageSequence stages(StageSequenceOptions{.worker = FAKE_WORKER_PATH,
                                                .cache_dir = cache,
                                                .exchange_root = exchange_.path(),
 .settings = {.mode = JudgeMode::kFresh},
                                                .sanitize = false,
                                                .prove_execution = false},
                         recorder);
  Evaluation e;
  e.arch = arch::Arch::kHopper;
  stages.run(task_, CompiledCandidate{.shared_object = "/nowhere/pass.so"}, e);
  ASSERT_EQ(e.verdict, Verdict::kPassed) << e.message;
  auto mode_of = [](const util::ProcessSpec& spec) {
    for (const auto& arg : spec.argv) {
      if (arg == "judge" || arg == "candidate" || arg == "time") return arg;
    }
    return std::string();
  };
  auto holds = [&](const std::vector<std::filesystem::path>& paths) {
    return std::find(paths.begin(), paths.end(), cache) != paths.end();
  };
  EXPECT_TRUE(std::filesystem::is_directory(cache));  // made first: a sandbox binds only folders
  std::map<std::string, int> calls;
  for (const auto& spec : recorder->calls) {
    const std::string mode = mode_of(spec);
    if (mode.empty()) continue;
    ++calls[mode];
    if (mode == "judge") {
      EXPECT_TRUE(holds(spec.write_paths));
    } else {
      EXPECT_FALSE(holds(spec.write_paths)) << mode;
      EXPECT_TRUE(holds(spec.read_paths)) << mode;
    }
    if (mode == "candidate") {
      EXPECT_EQ(spec.write_paths.size(), 1u);  // its exchange folder
    }
  }
  EXPECT_GE(calls["judge"], 1);
  EXPECT_GE(calls["candidate"], 1);
  EXPECT_GE(calls["time"], 1);
}

struct Expectation {
  const char* behaviour;
  Verdict verdict;
  const char* message_part;
  Stage failed_stage;
};

class StageSequenceVerdicts : public StageSequenceTest,
                                public ::testing::WithParamInterface<Expectation> {};

TEST_P(StageSequenceVerdicts, ThenTheNextCandidateEvaluatesNormally) {
  const Expectation& want = GetParam();
  auto start = std::chrono::steady_clock::now();
  Evaluation bad = evaluate(want.behaviour);
  EXPECT_EQ(bad.verdict, want.verdict) << bad.message;
  EXPECT_NE(bad.message.find(want.message_part), std::string::npos) << bad.message;
  EXPECT_EQ(bad.find_stage(want.failed_stage)->status, StageStatus::kFailed);
  if (want.failed_stage == Stage::kCorrectness) {
    EXPECT_EQ(bad.find_stage(Stage::kTiming)->status, StageStatus::kSkipped);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_FALSE(exchange_left_behind());
  Evaluation good = evaluate("pass");
  EXPECT_EQ(good.verdict, Verdict::kPassed) << good.message;
}

INSTANTIATE_TEST_SUITE_P(
    EveryEnding, StageSequenceVerdicts,
    ::testing::Values(
        Expectation{"crash", Verdict::kRuntimeError, "signal", Stage::kCorrectness},
        Expectation{"abort", Verdict::kRuntimeError, "signal", Stage::kCorrectness},
        Expectation{"hang", Verdict::kTimeout, "killed after", Stage::kCorrectness},
        Expectation{"garbage", Verdict::kRuntimeError, "without a reply", Stage::kCorrectness},
        Expectation{"exit", Verdict::kRuntimeError, "exit 3", Stage::kCorrectness},
        Expectation{"raise", Verdict::kRuntimeError, "boom", Stage::kCorrectness},
        Expectation{"wrong", Verdict::kIncorrectNumerical, "output C", Stage::kCorrectness},
        Expectation{"unwritten", Verdict::kIncorrectShape, "never written", Stage::kCorrectness},
        Expectation{"modify", Verdict::kInputsModified, "input(s) A", Stage::kCorrectness},
        Expectation{"irreproducible", Verdict::kInternalError, "not reproducible",
                    Stage::kCorrectness},
        Expectation{"foreign", Verdict::kForbidden, "nvjet", Stage::kTiming},
        Expectation{"cached", Verdict::kIncorrectNumerical, "timed calls", Stage::kTiming},
        Expectation{"hang_timing", Verdict::kTimeout, "timing", Stage::kTiming}),
    [](const auto& param_info) { return std::string(param_info.param.behaviour); });

TEST_F(StageSequenceTest, JobsCarryTheCandidateAndLimits) {
  CompiledCandidate candidate{.shared_object = "/x/c.so"};
  candidate.sass.kernels.push_back({.name = "_Z6kernelv"});
  auto jobs = stages_.make_jobs(task_, candidate);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].library, "/x/c.so");
  EXPECT_EQ(jobs[0].trials, 3);
  EXPECT_EQ(jobs[1].inputs[0].shape, (std::vector<std::int64_t>{8, 3}));
  EXPECT_EQ(jobs[1].candidate_kernels, std::vector<std::string>{"_Z6kernelv"});
  EXPECT_EQ(jobs[0].limits.call_timeout.count(), 20000);
  EXPECT_EQ(worker::mode_of(jobs[0].request), "candidate");
}

}  // namespace
}  // namespace ptxbench::eval::gpu_pipeline

namespace ptxbench::eval::gpu_pipeline {
namespace {

// A correct candidate whose GMMA kernel the probe cannot measure (the fake worker has no probe
// mode): with ncu absent nothing measures it, with ncu counting zero it was not executed.
class StageSequenceProof : public StageSequenceTest {
 protected:
  Evaluation prove_with(
      const std::filesystem::path& ncu,
      std::shared_ptr<util::ProcessRunner> runner = std::make_shared<util::SystemProcessRunner>()) {
    task_.requested[arch::Arch::kHopper] = {"GMMA"};
    StageSequence stages(StageSequenceOptions{.worker = FAKE_WORKER_PATH,
                                                  .cache_dir = exchange_.path() / "cache",
                                                  .exchange_root = exchange_.path(),
 .settings = {.mode = JudgeMode::kFresh},
                                                  .candidate_timeout = std::chrono::seconds(3),
                                                  .timing_timeout = std::chrono::seconds(3),
                                                  .sanitize = false,
                                                  .ncu = ncu},
                           std::move(runner));
    Evaluation e;
    e.arch = arch::Arch::kHopper;
    CompiledCandidate candidate{.shared_object = "/nowhere/pass.so"};
    sass::SassKernel kernel;
    kernel.name = "_Z4gemmv";
    kernel.instructions.push_back(
        {.offset = 0, .opcode = "HGMMA.64x64x16.F32.BF16", .family = "GMMA"});
    kernel.family_counts["GMMA"] = 1;
    candidate.sass.kernels.push_back(kernel);
    stages.run(task_, candidate, e);
    return e;
  }
};

TEST_F(StageSequenceProof, NothingMeasuredSaysTheExecutionCouldNotBeProven) {
  Evaluation e = prove_with("/no/such/ncu");
  EXPECT_EQ(e.verdict, Verdict::kInstructionsNotExecuted) << e.message;
  EXPECT_NE(e.message.find("could not be proven"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find("not executed"), std::string::npos) << e.message;
}

TEST_F(StageSequenceProof, AMeasuredZeroIsNotExecuted) {
  const std::filesystem::path ncu = exchange_.path() / "ncu";
  {
    std::ofstream script(ncu);
    script << "#!/bin/sh\n"
              "echo '\"ID\",\"Kernel Name\",\"smsp__sass_inst_executed.sum\","
              "\"smsp__sass_inst_executed_op_shared_gmma.sum\","
              "\"smsp__sass_inst_executed_op_tma.sum\"'\n"
              "echo '\"\",\"\",\"inst\",\"inst\",\"inst\"'\n"
              "echo '\"0\",\"_Z4gemmv\",\"1,000\",\"0\",\"0\"'\n";
  }
  std::filesystem::permissions(ncu, std::filesystem::perms::owner_all);
  Evaluation e = prove_with(ncu);
  EXPECT_EQ(e.verdict, Verdict::kInstructionsNotExecuted) << e.message;
  EXPECT_NE(e.message.find("GMMA: present (1 instructions), not executed"), std::string::npos)
      << e.message;
  EXPECT_EQ(e.message.find("could not be proven"), std::string::npos) << e.message;
}

// Counts the calls that run at once; each lasts at least `kHold`, so calls that the stages start
// together overlap whatever the machine's load.
class OverlapRunner final : public util::ProcessRunner {
 public:
  static constexpr auto kHold = std::chrono::milliseconds(500);
  util::ProcessResult run(const util::ProcessSpec& spec) override {
    const bool timing = std::find(spec.argv.begin(), spec.argv.end(), "time") != spec.argv.end();
    const int now = ++running;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    if (timing && now > 1) timing_overlapped = true;
    std::this_thread::sleep_for(kHold);
    auto result = system_.run(spec);
    if (timing && running.load() > 1) timing_overlapped = true;
    --running;
    return result;
  }
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  std::atomic<bool> timing_overlapped{false};

 private:
  util::SystemProcessRunner system_;
};

// A compute-sanitizer that takes `seconds` per tool and reports nothing (the candidate is not
// run: the fake worker under it would prove nothing).
std::filesystem::path fake_sanitizer(const std::filesystem::path& dir, int seconds) {
  const auto path = dir / "compute-sanitizer";
  {
    std::ofstream script(path);
    script << "#!/bin/sh\n"
              "[ \"$1\" = --help ] && exit 0\n"
              "sleep "
           << seconds
           << "\n"
              "echo '========= ERROR SUMMARY: 0 errors'\n";
  }
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

class StageSequenceOverlap : public StageSequenceTest {
 protected:
  Evaluation evaluate_with(const std::string& behaviour, int sanitizer_seconds,
                           std::shared_ptr<util::ProcessRunner> runner,
                           std::chrono::seconds racecheck_timeout = std::chrono::seconds(15)) {
    StageSequence stages(StageSequenceOptions{.worker = FAKE_WORKER_PATH,
                                                  .cache_dir = exchange_.path() / "cache",
                                                  .exchange_root = exchange_.path(),
                                                  .settings = {.mode = JudgeMode::kFresh, .racecheck_timeout =
                                                                   racecheck_timeout},
                                                  .candidate_timeout = std::chrono::seconds(2),
                                                  .timing_timeout = std::chrono::seconds(3),
                                                  .compute_sanitizer = fake_sanitizer(
                                                      exchange_.path(), sanitizer_seconds),
                                                  .prove_execution = false},
                           std::move(runner));
    Evaluation e;
    e.arch = arch::Arch::kHopper;
    stages.run(task_, CompiledCandidate{.shared_object = "/nowhere/" + behaviour + ".so"}, e);
    return e;
  }
};

// The sanitizer runs beside the correctness check (neither is timed); timing runs alone after.
TEST_F(StageSequenceOverlap, TheSanitizerOverlapsCorrectnessAndTimingRunsAlone) {
  auto runner = std::make_shared<OverlapRunner>();
  Evaluation e = evaluate_with("pass", 1, runner);
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  EXPECT_EQ(e.find_stage(Stage::kSanitize)->status, StageStatus::kPassed);
  EXPECT_EQ(e.find_stage(Stage::kCorrectness)->status, StageStatus::kPassed);
  EXPECT_GE(runner->most.load(), 2);
  EXPECT_FALSE(runner->timing_overlapped.load());
}

// A candidate that hangs in the correctness run is TIMEOUT at that run's deadline: the tools
// beside it (which would hang as long) are stopped, not waited out, and say so.
TEST_F(StageSequenceOverlap, AHangStopsTheSanitizerInsteadOfWaitingItOut) {
  const auto start = std::chrono::steady_clock::now();
  Evaluation e = evaluate_with("hang", 60, std::make_shared<util::SystemProcessRunner>());
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(e.verdict, Verdict::kTimeout) << e.message;
  EXPECT_LT(took, std::chrono::seconds(20));
  const StageRecord& sanitize = *e.find_stage(Stage::kSanitize);
  EXPECT_EQ(sanitize.status, StageStatus::kNotChecked);
  EXPECT_NE(sanitize.message.find("stopped"), std::string::npos) << sanitize.message;
  EXPECT_FALSE(exchange_left_behind());
}

// `ptxbench eval --racecheck-timeout`: racecheck past its deadline is "not checked", and the
// verdict does not wait for it.
TEST_F(StageSequenceOverlap, RacecheckPastItsConfiguredDeadlineIsNotChecked) {
  Evaluation e = evaluate_with("pass", 3, std::make_shared<util::SystemProcessRunner>(),
                               std::chrono::seconds(1));
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  const StageRecord& sanitize = *e.find_stage(Stage::kSanitize);
  EXPECT_EQ(sanitize.status, StageStatus::kNotChecked) << sanitize.message;
  EXPECT_NE(sanitize.message.find("racecheck (timed out"), std::string::npos) << sanitize.message;
  EXPECT_NE(sanitize.message.find("memcheck: clean"), std::string::npos) << sanitize.message;
}

// While the correctness check beside it still runs (here its judge takes 5 s), racecheck goes on
// past its deadline and finishes: it delays nothing then.
TEST_F(StageSequenceOverlap, RacecheckFinishesPastItsDeadlineWhileCorrectnessRuns) {
  Evaluation e = evaluate_with("slow_judge", 2, std::make_shared<util::SystemProcessRunner>(),
                               std::chrono::seconds(1));
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  const StageRecord& sanitize = *e.find_stage(Stage::kSanitize);
  EXPECT_EQ(sanitize.status, StageStatus::kPassed) << sanitize.message;
  EXPECT_NE(sanitize.message.find("racecheck: clean"), std::string::npos) << sanitize.message;
}

}  // namespace
}  // namespace ptxbench::eval::gpu_pipeline

namespace ptxbench::eval::gpu_pipeline {
namespace {

// --time-workloads: one `worker time` process per timed workload, each workload's record filled,
// the headline still the evaluation's figure, and any timed workload's failure the stage's.
class StageSequenceTimedWorkloads : public StageSequenceTest {
 protected:
  Evaluation evaluate_timing(const std::string& behaviour, TimedWorkloads timed) {
    StageSequence stages(
        StageSequenceOptions{.worker = FAKE_WORKER_PATH,
                               .cache_dir = exchange_.path() / "cache",
                               .exchange_root = exchange_.path(),
                               .settings = {.mode = JudgeMode::kFresh, .timed_workloads = std::move(timed)},
                               .candidate_timeout = std::chrono::seconds(3),
                               .timing_timeout = std::chrono::seconds(3),
                               .sanitize = false,
                               .prove_execution = false,
                               .worker_env = {{"FAKE_WORKER_LOG", log_.string()}}},
        std::make_shared<util::SystemProcessRunner>());
    Evaluation e;
    e.arch = arch::Arch::kHopper;
    CompiledCandidate candidate{.shared_object = "/nowhere/" + behaviour + ".so"};
    stages.run(task_, candidate, e);
    return e;
  }

  // The `time` calls the fake worker saw, each as the workloads it was given.
  std::vector<std::string> time_calls() const {
    std::ifstream in(log_);
    std::vector<std::string> calls;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("time ", 0) == 0) calls.push_back(line.substr(5));
    }
    return calls;
  }

  const WorkloadResult& workload(const Evaluation& e, const std::string& name) const {
    for (const auto& w : e.workloads) {
      if (w.workload == name) return w;
    }
    throw std::runtime_error("no workload " + name);
  }

  std::filesystem::path log_ = exchange_.path() / "calls.log";
};

TEST_F(StageSequenceTimedWorkloads, HeadlineOnlyByDefault) {
  Evaluation e = evaluate_timing("pass", {});
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  EXPECT_EQ(time_calls(), std::vector<std::string>{"M8"});
  EXPECT_FALSE(workload(e, "M4").speedup.has_value());
  EXPECT_EQ(e.find_stage(Stage::kTiming)->message.find("workloads timed"), std::string::npos);
}

TEST_F(StageSequenceTimedWorkloads, NamedWorkloadsAreTimedEachInItsOwnProcess) {
  Evaluation e = evaluate_timing("pass", TimedWorkloads{.names = {"M4"}});
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  EXPECT_EQ(time_calls(), (std::vector<std::string>{"M4", "M8"}));
  const auto& small = workload(e, "M4");
  ASSERT_TRUE(small.speedup.has_value());
  EXPECT_NEAR(*small.speedup, 1.0 / 1.5, 1e-12);  // candidate 1 + 4/8 ms, baseline 1 ms
  ASSERT_TRUE(small.candidate && small.baseline && small.tflops);
  EXPECT_DOUBLE_EQ(small.candidate->median_ms, 1.5);
  EXPECT_DOUBLE_EQ(small.baseline->median_ms, 1.0);
  EXPECT_DOUBLE_EQ(*small.tflops, task_.flops(task_.workloads[0]) / (1.5 * 1e-3) / 1e12);
  // The headline keeps its own figures and remains the evaluation's speedup.
  ASSERT_TRUE(e.headline_speedup().has_value());
  EXPECT_DOUBLE_EQ(*e.headline_speedup(), 0.5);
  const auto& message = e.find_stage(Stage::kTiming)->message;
  EXPECT_NE(message.find("2 workloads timed"), std::string::npos) << message;
  EXPECT_NE(message.find("geometric-mean speedup 0.577x"), std::string::npos) << message;
  EXPECT_NE(message.find("M8: candidate"), std::string::npos) << message;
  EXPECT_EQ(e.message, message);
}

TEST_F(StageSequenceTimedWorkloads, AllTimesEveryWorkload) {
  Evaluation e = evaluate_timing("pass", TimedWorkloads{.all = true});
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  EXPECT_EQ(time_calls(), (std::vector<std::string>{"M4", "M8"}));
  for (const auto& w : e.workloads) EXPECT_TRUE(w.speedup.has_value()) << w.workload;
}

TEST_F(StageSequenceTimedWorkloads, NamesTheTaskLacksAreSkipped) {
  Evaluation e = evaluate_timing("pass", TimedWorkloads{.names = {"M8828"}});
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  EXPECT_EQ(time_calls(), std::vector<std::string>{"M8"});
}

struct TimedFailure {
  const char* behaviour;
  Verdict verdict;
  const char* message_part;
  std::size_t time_calls;  // the failing one included; none after it
};

class StageSequenceTimedFailures : public StageSequenceTimedWorkloads,
                                     public ::testing::WithParamInterface<TimedFailure> {};

TEST_P(StageSequenceTimedFailures, AnyTimedWorkloadFailsTheStage) {
  const TimedFailure& want = GetParam();
  Evaluation e = evaluate_timing(want.behaviour, TimedWorkloads{.all = true});
  EXPECT_EQ(e.verdict, want.verdict) << e.message;
  EXPECT_EQ(e.find_stage(Stage::kTiming)->status, StageStatus::kFailed);
  EXPECT_NE(e.message.find(want.message_part), std::string::npos) << e.message;
  EXPECT_EQ(time_calls().size(), want.time_calls);
  EXPECT_FALSE(exchange_left_behind());
}

INSTANTIATE_TEST_SUITE_P(
    OnEitherWorkload, StageSequenceTimedFailures,
    ::testing::Values(
        TimedFailure{"foreign@M4", Verdict::kForbidden, "timing M4: run() launched", 1},
        TimedFailure{"crash_timing@M4", Verdict::kRuntimeError, "timing M4:", 1},
        TimedFailure{"cached@M8", Verdict::kIncorrectNumerical, "timing M8: the outputs", 2},
        TimedFailure{"hang_timing@M8", Verdict::kTimeout, "timing M8:", 2}),
    [](const auto& param_info) {
      std::string name = param_info.param.behaviour;
      std::replace(name.begin(), name.end(), '@', '_');
      return name;
    });

// docs/correctness.md, "Unseen workloads": judged after the shown ones, apart, and by policy.
Evaluation evaluate_unseen(const std::string& behaviour, correctness::UnseenPolicy policy,
                           const std::filesystem::path& exchange) {
  task::Task task = small_gemm_task();
  task.unseen.bounds["M"] = {1, 12};  // M in {1, 6 (between 4 and 8), 7, 12}
  StageSequence stages(StageSequenceOptions{.worker = FAKE_WORKER_PATH,
                                                .cache_dir = exchange / "cache",
                                                .exchange_root = exchange,
                                                .settings = {.mode = JudgeMode::kFresh, .unseen = policy},
                                                .candidate_timeout = std::chrono::seconds(3),
                                                .timing_timeout = std::chrono::seconds(3),
                                                .sanitize = false,
                                                .prove_execution = false},
                         std::make_shared<util::SystemProcessRunner>());
  Evaluation e;
  e.arch = arch::Arch::kHopper;
  e.input_seed = 7;  // as the engine's front chooses it
  CompiledCandidate candidate{.shared_object = "/nowhere/" + behaviour + ".so"};
  stages.run(task, candidate, e);
  return e;
}

TEST_F(StageSequenceTest, AnUnseenFailureFailsTheVerdictWithoutNamingTheSize) {
  const Evaluation e =
      evaluate_unseen("wrong_unseen", correctness::UnseenPolicy::kRequire, exchange_.path());
  EXPECT_EQ(e.verdict, Verdict::kIncorrectNumerical) << e.message;
  EXPECT_NE(e.message.find("correct on the 2 workloads the task lists, but not on 4 of 4 hidden"),
            std::string::npos)
      << e.message;
  EXPECT_EQ(e.message.find("unseen_"), std::string::npos) << e.message;
  ASSERT_TRUE(e.generalisation.has_value());
  EXPECT_EQ(e.generalisation->policy, "require");
  EXPECT_EQ(e.generalisation->shown_passed, 2);
  EXPECT_EQ(e.generalisation->unseen_total, 4);
  EXPECT_EQ(e.generalisation->unseen_passed, 0);
  EXPECT_EQ(e.find_stage(Stage::kCorrectness)->status, StageStatus::kFailed);
  EXPECT_EQ(e.find_stage(Stage::kTiming)->status, StageStatus::kSkipped);
  EXPECT_EQ(e.input_seed, 7u);
  ASSERT_EQ(e.workloads.size(), 6u);
  EXPECT_TRUE(e.workloads[2].unseen);
  EXPECT_FALSE(e.workloads[1].unseen);
}

TEST_F(StageSequenceTest, TheReportPolicyRecordsTheGapAndKeepsTheVerdict) {
  const Evaluation e =
      evaluate_unseen("wrong_unseen", correctness::UnseenPolicy::kReport, exchange_.path());
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  ASSERT_TRUE(e.generalisation.has_value());
  EXPECT_EQ(e.generalisation->failed_unseen,
            (std::vector<std::string>{"unseen_M1", "unseen_M6", "unseen_M7", "unseen_M12"}));
  EXPECT_NE(e.find_stage(Stage::kCorrectness)->message.find("hidden workloads: 0 of 4 correct"),
            std::string::npos);
}

TEST_F(StageSequenceTest, CorrectOnEveryUnseenWorkloadAndOffRunsNone) {
  Evaluation e = evaluate_unseen("pass", correctness::UnseenPolicy::kRequire, exchange_.path());
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  ASSERT_TRUE(e.generalisation.has_value());
  EXPECT_EQ(e.generalisation->unseen_passed, 4);
  e = evaluate_unseen("pass", correctness::UnseenPolicy::kOff, exchange_.path());
  EXPECT_FALSE(e.generalisation.has_value());
  EXPECT_EQ(e.workloads.size(), 2u);
}

}  // namespace
}  // namespace ptxbench::eval::gpu_pipeline
