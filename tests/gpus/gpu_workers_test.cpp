// One worker per GPU: --gpus parsing, workers pinned to their GPU, and the GPU queue the
// service and runs use spreading candidates over fake GPU workers: throughput grows with the
// number of workers, no worker judges two candidates at once, and a candidate's verdict does
// not depend on the worker that judged it.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "fake_gpu_worker.hpp"
#include "ptxbench/agent/gpu_queue.hpp"
#include "ptxbench/gpus/gpu_list.hpp"

namespace ptxbench::gpus {
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

// `candidates` candidates (each twice) through a GPU queue of `count` fake workers, from as many
// threads as there are candidates (the compiles of a service or run, done).
Outcome judge(int count, int candidates, std::chrono::milliseconds gpu_time) {
  Outcome out;
  std::vector<std::shared_ptr<eval::GpuStages>> stages;
  for (int i = 0; i < count; ++i) {
    out.workers.push_back(std::make_shared<FakeGpuWorker>(i, gpu_time));
    stages.push_back(out.workers.back());
  }
  agent::GpuQueue queue(stages);
  static const task::Task task{.name = "t"};
  std::mutex mutex;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < 2 * candidates; ++c) {
    threads.emplace_back([&, c] {
      eval::CompiledCandidate candidate{.source_hash =
                                            "candidate-" + std::to_string(c % candidates)};
      eval::Evaluation e;
      queue.run(task, candidate, e);
      std::lock_guard lock(mutex);
      out.verdicts[candidate.source_hash].insert(e.verdict);
    });
  }
  for (auto& t : threads) t.join();
  out.wall = std::chrono::steady_clock::now() - start;
  return out;
}

TEST(GpuWorkers, ThroughputScalesWithTheNumberOfWorkers) {
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
  const auto outcome = judge(4, 6, 10ms);
  ASSERT_EQ(outcome.verdicts.size(), 6u);
  for (const auto& [candidate, verdicts] : outcome.verdicts)
    EXPECT_EQ(verdicts.size(), 1u) << candidate;
}

}  // namespace
}  // namespace ptxbench::gpus
