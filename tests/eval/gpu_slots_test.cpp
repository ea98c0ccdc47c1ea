// One worker per GPU: --gpus parsing, workers pinned to their GPU, and the engine's scheduler
// spreading candidates over fake GPU workers: throughput grows with the number of workers, no
// worker judges two candidates at once, and a candidate's verdict does not depend on the worker
// that judged it.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "fake_gpu_worker.hpp"
#include "fake_toolchain.hpp"
#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/eval/gpu_slots.hpp"
#include "ptxbench/eval/scheduler.hpp"
#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::eval {
namespace {
using namespace std::chrono_literals;
using ptxbench::testing::FakeGpuWorker;

class RecordingRunner final : public util::ProcessRunner {
 public:
  util::ProcessSpec last;
  std::string stdout_text;
  util::ProcessResult run(const util::ProcessSpec& spec) override {
    last = spec;
    return {.started = true, .exit_code = 0, .stdout_text = stdout_text};
  }
};

TEST(GpuList, ParsesAListAndAllFromNvidiaSmi) {
  RecordingRunner runner;
  auto list = parse_gpu_list("0, 2,3", runner);
  ASSERT_TRUE(list.has_value()) << list.error().message;
  EXPECT_EQ(*list, (std::vector<std::string>{"0", "2", "3"}));
  EXPECT_FALSE(parse_gpu_list("0,0", runner).has_value());
  EXPECT_FALSE(parse_gpu_list("zero", runner).has_value());
  EXPECT_EQ(parse_gpu_list("", runner).error().message,
            "--gpus : expected all or a list such as 0,1,3");
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  runner.stdout_text = "GPU 0: NVIDIA H200 (UUID: GPU-a)\nGPU 1: NVIDIA H200 (UUID: GPU-b)\n";
  EXPECT_EQ(*parse_gpu_list("all", runner), (std::vector<std::string>{"0", "1"}));
  ::setenv("CUDA_VISIBLE_DEVICES", "3,5", 1);
  EXPECT_EQ(*parse_gpu_list("all", runner), (std::vector<std::string>{"3", "5"}));
  ::unsetenv("CUDA_VISIBLE_DEVICES");
}

TEST(GpuList, APinnedRunnerShowsItsProcessesOneGpu) {
  auto inner = std::make_shared<RecordingRunner>();
  PinnedProcessRunner pinned(inner, "2");
  pinned.run({.argv = {"ptxbench-worker"}, .env = {{"CUDA_VISIBLE_DEVICES", "0,1"}, {"A", "b"}}});
  EXPECT_EQ(inner->last.env, (std::vector<std::pair<std::string, std::string>>{
                                 {"A", "b"}, {"CUDA_VISIBLE_DEVICES", "2"}}));
}

struct Outcome {
  std::chrono::duration<double> wall{};
  std::map<std::string, std::set<eval::Verdict>> verdicts;  // candidate -> verdicts seen
  std::vector<std::shared_ptr<FakeGpuWorker>> workers;
};

// `candidates` candidates (each twice) through a scheduler with `count` fake GPU workers; the
// compiles (faked) take no time to speak of.
Outcome judge(int count, int candidates, std::chrono::milliseconds gpu_time) {
  Outcome out;
  std::vector<std::shared_ptr<eval::GpuStages>> stages;
  for (int i = 0; i < count; ++i) {
    out.workers.push_back(std::make_shared<FakeGpuWorker>(i, gpu_time));
    stages.push_back(out.workers.back());
  }
  auto task = task::load_task_file(task::default_tasks_dir() / "gemm" / "gemm_n7168_k5120.json");
  EXPECT_TRUE(task.has_value());
  std::vector<TaskCandidate> pairs;
  for (int c = 0; c < 2 * candidates; ++c) {
    pairs.push_back(
        {.task = &*task,
         .input = {.text = "void run() {}  // candidate " + std::to_string(c % candidates) + "\n",
                   .is_markdown = false,
                   .source_name = "candidate-" + std::to_string(c % candidates)}});
  }
  Scheduler scheduler({.jobs = 8}, std::make_shared<ptxbench::testing::FakeToolchain>(), stages);
  const auto start = std::chrono::steady_clock::now();
  auto evaluations = scheduler.evaluate_pairs(arch::Arch::kHopper, pairs);
  out.wall = std::chrono::steady_clock::now() - start;
  for (const auto& e : evaluations) out.verdicts[e.source_name].insert(e.verdict);
  return out;
}

TEST(GpuWorkers, ThroughputScalesWithTheNumberOfWorkers) {
  if (!compile::find_nvcc()) GTEST_SKIP() << "the scheduler looks nvcc up even when faked";
  const auto one = judge(1, 8, 50ms);
  const auto four = judge(4, 8, 50ms);
  // 16 GPU runs of 50 ms: 0.8 s on one worker, 0.2 s on four (allowing for a loaded machine).
  EXPECT_GE(one.wall.count(), 0.8);
  EXPECT_LT(four.wall.count(), one.wall.count() / 2.5)
      << "one worker " << one.wall.count() << " s, four " << four.wall.count() << " s";
  for (const auto& worker : four.workers) {
    EXPECT_GT(worker->runs(), 0);
    EXPECT_FALSE(worker->overlapped());
  }
}

TEST(GpuWorkers, TheSameCandidateGetsTheSameVerdictOnAnyWorker) {
  if (!compile::find_nvcc()) GTEST_SKIP() << "the scheduler looks nvcc up even when faked";
  const auto outcome = judge(4, 6, 10ms);
  ASSERT_EQ(outcome.verdicts.size(), 6u);
  for (const auto& [candidate, verdicts] : outcome.verdicts)
    EXPECT_EQ(verdicts.size(), 1u) << candidate;
}

}  // namespace
}  // namespace ptxbench::eval
