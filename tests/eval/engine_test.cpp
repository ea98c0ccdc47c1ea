// open_engine: the settings reach the sandbox, the scheduler and the GPU stages. Stages 1-4 run
// on a faked toolchain, stages 5-8 in the stand-in GPU worker (tests/eval/worker/fake_worker.cpp),
// whose log shows the calls it got (and the device of `info`); the trusted side's correctness
// record says which rule judged.
#include "ptxbench/eval/engine.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "fake_toolchain.hpp"
#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

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
  EvaluationSettings settings{.sandbox = sandbox::Mode::kOff,
                              .racecheck_timeout = std::chrono::seconds(7)};
  settings.timed_workloads.all = true;
  std::optional<GpuStageChoices> seen;
  auto engine = open_engine(settings, {.gpu_slots = [&seen](std::shared_ptr<util::ProcessRunner>,
                                                            const GpuStageChoices& choices) {
                              seen = choices;
                              return util::Expected<std::vector<std::shared_ptr<GpuStages>>>(
                                  std::vector<std::shared_ptr<GpuStages>>{});
                            }});
  ASSERT_TRUE(engine.has_value()) << engine.error().message;
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->racecheck_timeout, std::chrono::seconds(7));
  EXPECT_TRUE(seen->timed_workloads.all);
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
