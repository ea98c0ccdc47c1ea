// open_engine: the settings reach the sandbox, the scheduler and the GPU stages. Stages 1-4 run
// on a faked toolchain, stages 5-8 in the stand-in GPU worker (tests/eval/worker/fake_worker.cpp),
// whose log shows the calls it got (and the device of `info`); the trusted side's correctness
// record says which rule judged.
#include "ptxbench/eval/engine.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <set>

#include "fake_toolchain.hpp"
#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/live_process.hpp"

namespace ptxbench::eval {
namespace {
using ::testing::HasSubstr;

// nvcc, cuobjdump and nvdisasm faked; every other program (the GPU worker) runs for real.
class FakeToolchainRealWorker final : public util::ProcessRunner {
 public:
  util::ProcessResult run(const util::ProcessSpec& spec) override {
    const auto tool = std::filesystem::path(spec.argv.front()).filename().string();
    if (tool == "nvcc" || tool == "cuobjdump" || tool == "nvdisasm") return tools.run(spec);
    return system.run(spec);
  }
  // The warm judge's server and the candidate's trials process are live processes.
  util::Expected<std::unique_ptr<util::LiveProcess>> start(const util::ProcessSpec& spec) override {
    return system.start(spec);
  }
  testing::FakeToolchain tools;
  util::SystemProcessRunner system;
};

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!compile::find_nvcc()) GTEST_SKIP() << "the scheduler looks nvcc up even when faked";
    auto loaded =
        task::load_task_file(task::default_tasks_dir() / "gemm" / "gemm_n7168_k5120.json");
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    task_ = std::move(*loaded);
    ::setenv("PTXBENCH_WORKER", FAKE_WORKER_PATH, 1);
    ::setenv("FAKE_WORKER_LOG", (dir_.path() / "worker.log").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("PTXBENCH_WORKER");
    ::unsetenv("FAKE_WORKER_LOG");
  }
  std::string worker_log() const {
    auto text = util::read_file(dir_.path() / "worker.log");
    return text ? *text : std::string();
  }

  util::TempDir dir_;
  task::Task task_;
};

TEST_F(EngineTest, TheCorrectnessRuleAndTheGpusReachTheGpuStages) {
  // The GEMM's own rule is as_accurate_as_library; the settings make it matches_library.
  ASSERT_EQ(task_.tolerance.rule, task::CorrectnessRule::kAsAccurateAsLibrary);
  for (auto rule : {std::optional<task::CorrectnessRule>{},
                    std::optional{task::CorrectnessRule::kMatchesLibrary}}) {
    EvaluationSettings settings{
        .sandbox = sandbox::Mode::kOff, .gpus = "3", .correctness_rule = rule};
    auto engine = open_engine(settings, {.processes = std::make_shared<FakeToolchainRealWorker>()});
    ASSERT_TRUE(engine.has_value()) << engine.error().message;
    std::vector<task::Task> suite{task_};
    apply_correctness_rule(settings, suite);
    auto e = (*engine)->evaluate(
        suite.front(), arch::Arch::kHopper,
        {.text = "void run() {}\n", .is_markdown = false, .source_name = "pass.cu"});
    EXPECT_EQ(e.sandbox, "off");
    const auto* correctness = e.find_stage(Stage::kCorrectness);
    ASSERT_NE(correctness, nullptr);
    EXPECT_EQ(correctness->status, StageStatus::kPassed) << correctness->message;
    EXPECT_THAT(correctness->message, HasSubstr(rule ? "within atol=" : "as accurate as"));
    const auto log = worker_log();
    EXPECT_THAT(log, HasSubstr("info 3\n"));
    EXPECT_THAT(log, HasSubstr("judge M70")) << log;
  }
}

TEST_F(EngineTest, RacecheckDeadlineAndTimedWorkloadsReachTheGpuStages) {
  EvaluationSettings settings{.sandbox = sandbox::Mode::kOff};
  settings.judge.racecheck_timeout = std::chrono::seconds(7);
  settings.judge.timed_workloads.all = true;
  std::optional<JudgeSettings> seen;
  auto engine = open_engine(settings, {.gpu_slots = [&seen](std::shared_ptr<util::ProcessRunner>,
                                                            const JudgeSettings& choices) {
                              seen = choices;
                              return util::Expected<std::vector<std::shared_ptr<GpuStages>>>(
                                  std::vector<std::shared_ptr<GpuStages>>{});
                            }});
  ASSERT_TRUE(engine.has_value()) << engine.error().message;
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->racecheck_timeout, std::chrono::seconds(7));
  EXPECT_TRUE(seen->timed_workloads.all);
  EXPECT_FALSE(seen->reference_cache);  // off unless asked for
  settings.judge.reference_cache = true;
  auto cached = open_engine(settings, {.gpu_slots = [&seen](std::shared_ptr<util::ProcessRunner>,
                                                            const JudgeSettings& choices) {
                              seen = choices;
                              return util::Expected<std::vector<std::shared_ptr<GpuStages>>>(
                                  std::vector<std::shared_ptr<GpuStages>>{});
                            }});
  ASSERT_TRUE(cached.has_value()) << cached.error().message;
  EXPECT_TRUE(seen->reference_cache);
}

// A GPU slot that counts its verdicts and names its GPU.
class CountingSlot final : public GpuStages {
 public:
  bool available(arch::Arch, std::string&) override { return true; }
  void run(const task::Task&, const CompiledCandidate&, Evaluation& e) override {
    ++runs;
    seeds.push_back(e.input_seed.value_or(0));
    e.verdict = Verdict::kPassed;
    e.stage(Stage::kCorrectness) = {.stage = Stage::kCorrectness, .status = StageStatus::kPassed};
  }
  std::string identity() override { return "NVIDIA H200|sm_90"; }
  std::atomic<int> runs{0};
  std::vector<std::uint64_t> seeds;
};

TEST_F(EngineTest, TheVerdictCacheAnswersAByteIdenticalCandidateWithAFixedSeed) {
  auto slot = std::make_shared<CountingSlot>();
  const EvaluationSettings settings{.sandbox = sandbox::Mode::kOff,
                                    .parallel = 1,
                                    .input_seed = 77,
                                    .verdict_cache = dir_.path() / "verdicts"};
  auto engine = open_engine(
      settings, {.processes = std::make_shared<FakeToolchainRealWorker>(),
                 .gpu_slots = [slot](std::shared_ptr<util::ProcessRunner>, const JudgeSettings&) {
                   return util::Expected<std::vector<std::shared_ptr<GpuStages>>>(
                       std::vector<std::shared_ptr<GpuStages>>{slot});
                 }});
  ASSERT_TRUE(engine.has_value()) << engine.error().message;
  const CandidateInput input{
      .text = "void run() {}\n", .is_markdown = false, .source_name = "a.cu"};
  const auto first = (*engine)->evaluate(task_, arch::Arch::kHopper, input);
  const auto second = (*engine)->evaluate(task_, arch::Arch::kHopper, input);
  EXPECT_EQ(first.verdict, Verdict::kPassed) << first.message;
  EXPECT_FALSE(first.cached.has_value());
  ASSERT_TRUE(second.cached.has_value());
  EXPECT_EQ(second.verdict, Verdict::kPassed);
  EXPECT_EQ(second.input_seed, 77u);
  EXPECT_EQ(slot->runs, 1);
  EXPECT_EQ(slot->seeds, std::vector<std::uint64_t>{77});
  // Other code is judged.
  const auto other = (*engine)->evaluate(
      task_, arch::Arch::kHopper,
      {.text = "void run() { }\n", .is_markdown = false, .source_name = "b.cu"});
  EXPECT_FALSE(other.cached.has_value());
  EXPECT_EQ(slot->runs, 2);
}

TEST_F(EngineTest, ASeedPoolRecordsEachVerdictsDraw) {
  auto slot = std::make_shared<CountingSlot>();
  ::setenv("PTXBENCH_CACHE_DIR", (dir_.path() / "cache").c_str(), 1);
  const EvaluationSettings settings{.sandbox = sandbox::Mode::kOff, .parallel = 1, .seed_pool = 3};
  auto engine = open_engine(
      settings, {.processes = std::make_shared<FakeToolchainRealWorker>(),
                 .gpu_slots = [slot](std::shared_ptr<util::ProcessRunner>, const JudgeSettings&) {
                   return util::Expected<std::vector<std::shared_ptr<GpuStages>>>(
                       std::vector<std::shared_ptr<GpuStages>>{slot});
                 }});
  ::unsetenv("PTXBENCH_CACHE_DIR");
  ASSERT_TRUE(engine.has_value()) << engine.error().message;
  EXPECT_TRUE(std::filesystem::exists(dir_.path() / "cache" / "seed-pool.salt"));
  std::set<std::uint64_t> seeds;
  for (int i = 0; i < 12; ++i) {
    const auto e = (*engine)->evaluate(
        task_, arch::Arch::kHopper,
        {.text = "void run() {}\n", .is_markdown = false, .source_name = "a.cu"});
    ASSERT_TRUE(e.seed_pool.has_value());
    EXPECT_EQ(e.seed_pool->size, 3);
    ASSERT_TRUE(e.input_seed.has_value());
    seeds.insert(*e.input_seed);
  }
  EXPECT_LE(seeds.size(), 3u);
  EXPECT_EQ(slot->runs, 12);  // no verdict cache: each verdict judged
}

TEST_F(EngineTest, AnUnusableStrictSandboxIsRefused) {
  ::setenv("PTXBENCH_BWRAP", "/nonexistent/bwrap", 1);
  auto engine = open_engine({.sandbox = sandbox::Mode::kStrict});
  ::unsetenv("PTXBENCH_BWRAP");
  ASSERT_FALSE(engine.has_value());
  EXPECT_THAT(engine.error().message,
              HasSubstr("--sandbox strict: the sandbox cannot be set up here (partial: "));
}

TEST_F(EngineTest, AMalformedGpuListIsRefused) {
  auto engine = open_engine({.sandbox = sandbox::Mode::kOff, .gpus = "0,zero"});
  ASSERT_FALSE(engine.has_value());
  EXPECT_THAT(engine.error().message, HasSubstr("--gpus 0,zero"));
}

}  // namespace
}  // namespace ptxbench::eval
