// The scheduler sharing a GPU between candidates (gpu_concurrency > 1), with a fake GpuStages
// that records when each phase ran: the exclusive phase (proof, timing) never overlaps anything
// on its GPU, shared phases overlap up to the bound and within the GPU's free memory, one at a
// time runs the stages as one call, and stopping still settles every future.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fake_toolchain.hpp"
#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/eval/scheduler.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/child_processes.hpp"

namespace ptxbench::eval {
namespace {

using Clock = std::chrono::steady_clock;
using ptxbench::testing::FakeToolchain;

enum class Phase { kWhole, kShared, kExclusive };

struct Interval {
  Phase phase;
  Clock::time_point start;
  Clock::time_point end;
  bool overlaps(const Interval& other) const { return start < other.end && other.start < end; }
};

// Splits its stages; a candidate whose source name starts with "bad" fails in the shared phase.
class SharingGpu final : public GpuStages {
 public:
  std::chrono::milliseconds shared_time{80};
  std::chrono::milliseconds exclusive_time{20};
  std::optional<DeviceMemory> memory;
  std::uint64_t need = 0;
  std::string stop_at;  // the source name whose shared phase stops ptxbench

  bool available(arch::Arch, std::string&) override { return true; }
  void run(const task::Task&, const CompiledCandidate&, Evaluation& e) override {
    spend(Phase::kWhole, shared_time + exclusive_time);
    e.verdict = Verdict::kPassed;
  }
  bool run_shared(const task::Task&, const CompiledCandidate&, Evaluation& e) override {
    if (!stop_at.empty() && e.source_name == stop_at) util::stop_all_children();
    spend(Phase::kShared, shared_time);
    if (e.source_name.rfind("bad", 0) == 0) {
      e.verdict = Verdict::kIncorrectNumerical;
      e.message = "wrong";
      return false;
    }
    return true;
  }
  void run_exclusive(const task::Task&, const CompiledCandidate&, Evaluation& e) override {
    spend(Phase::kExclusive, exclusive_time);
    e.verdict = Verdict::kPassed;
  }
  std::optional<DeviceMemory> device_memory() const override { return memory; }
  std::uint64_t shared_memory_need(const task::Task&) const override { return need; }

  std::vector<Interval> intervals() {
    std::lock_guard lock(mutex_);
    return intervals_;
  }
  int count(Phase phase) {
    auto all = intervals();
    return static_cast<int>(
        std::count_if(all.begin(), all.end(), [&](const Interval& i) { return i.phase == phase; }));
  }
  // The most phases of `phase` seen running at one instant.
  int most_at_once(Phase phase) {
    int most = 0;
    for (const auto& a : intervals()) {
      if (a.phase != phase) continue;
      int at_start = 0;  // those running when `a` started
      for (const auto& b : intervals())
        if (b.phase == phase && b.start <= a.start && a.start < b.end) ++at_start;
      most = std::max(most, at_start);
    }
    return most;
  }

 private:
  void spend(Phase phase, std::chrono::milliseconds time) {
    const auto start = Clock::now();
    std::this_thread::sleep_for(time);
    std::lock_guard lock(mutex_);
    intervals_.push_back({phase, start, Clock::now()});
  }
  std::mutex mutex_;
  std::vector<Interval> intervals_;
};

class SchedulerSharingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!compile::find_nvcc())
      GTEST_SKIP() << "the evaluator looks nvcc up even when faked: not installed";
    auto loaded =
        task::load_task_file(task::default_tasks_dir() / "gemm" / "gemm_n7168_k5120.json");
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    task_ = std::move(*loaded);
  }

  static std::vector<CandidateInput> replies(int count, int bad_every = 0) {
    std::vector<CandidateInput> inputs;
    for (int i = 0; i < count; ++i) {
      const bool bad = bad_every > 0 && i % bad_every == bad_every - 1;
      inputs.push_back({.text = "```\nint v" + std::to_string(i) + ";\n```",
                        .source_name = (bad ? "bad" : "r") + std::to_string(i) + ".md"});
    }
    return inputs;
  }

  std::vector<Evaluation> judge(std::shared_ptr<SharingGpu> gpu, int concurrency,
                                const std::vector<CandidateInput>& inputs) {
    Scheduler scheduler({.jobs = 4, .gpu_concurrency = concurrency}, tools_, std::move(gpu));
    return scheduler.evaluate_many(task_, arch::Arch::kHopper, inputs);
  }

  task::Task task_;
  std::shared_ptr<FakeToolchain> tools_ = std::make_shared<FakeToolchain>();
};

TEST_F(SchedulerSharingTest, TimingHoldsTheGpuAloneWhileSharedStagesOverlapUpToTheBound) {
  auto gpu = std::make_shared<SharingGpu>();
  const auto results = judge(gpu, 3, replies(12, 4));
  for (const auto& e : results) {
    const bool bad = e.source_name.rfind("bad", 0) == 0;
    EXPECT_EQ(e.verdict, bad ? Verdict::kIncorrectNumerical : Verdict::kPassed) << e.source_name;
  }
  EXPECT_EQ(gpu->count(Phase::kShared), 12);
  EXPECT_EQ(gpu->count(Phase::kExclusive), 9) << "a decided verdict took the exclusive phase";
  EXPECT_EQ(gpu->count(Phase::kWhole), 0);
  const auto all = gpu->intervals();
  for (const auto& a : all) {
    if (a.phase != Phase::kExclusive) continue;
    int overlapping = 0;
    for (const auto& b : all) overlapping += (&a != &b && a.overlaps(b)) ? 1 : 0;
    EXPECT_EQ(overlapping, 0) << "an exclusive phase shared the GPU";
  }
  const int most = gpu->most_at_once(Phase::kShared);
  EXPECT_GE(most, 2) << "shared phases never overlapped";
  EXPECT_LE(most, 3);
}

TEST_F(SchedulerSharingTest, SharedStagesStayWithinTheGpusFreeMemory) {
  auto gpu = std::make_shared<SharingGpu>();
  gpu->memory = DeviceMemory{.total_bytes = 16ull << 30, .free_bytes = 10ull << 30};
  gpu->need = 4ull << 30;  // two fit in 10 GiB, three do not
  const auto results = judge(gpu, 4, replies(8));
  for (const auto& e : results) EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  EXPECT_EQ(gpu->most_at_once(Phase::kShared), 2);
}

TEST_F(SchedulerSharingTest, OneAtATimeRunsTheStagesAsOneCall) {
  auto gpu = std::make_shared<SharingGpu>();
  const auto results = judge(gpu, 1, replies(4));
  for (const auto& e : results) EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  EXPECT_EQ(gpu->count(Phase::kWhole), 4);
  EXPECT_EQ(gpu->count(Phase::kShared) + gpu->count(Phase::kExclusive), 0);
  EXPECT_EQ(gpu->most_at_once(Phase::kWhole), 1);
}

// Every GPU's lanes take from one queue: with two GPUs, both work while candidates wait.
TEST_F(SchedulerSharingTest, EveryGpuTakesWorkWhileCandidatesWait) {
  auto first = std::make_shared<SharingGpu>();
  auto second = std::make_shared<SharingGpu>();
  Scheduler scheduler({.jobs = 4, .gpu_concurrency = 2}, tools_,
                      std::vector<std::shared_ptr<GpuStages>>{first, second});
  const auto results = scheduler.evaluate_many(task_, arch::Arch::kHopper, replies(8));
  for (const auto& e : results) EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  EXPECT_EQ(first->count(Phase::kExclusive) + second->count(Phase::kExclusive), 8);
  EXPECT_GT(first->count(Phase::kExclusive), 0);
  EXPECT_GT(second->count(Phase::kExclusive), 0);
}

// Stopping is for the whole process, so it is tried in a child.
using SchedulerSharingDeathTest = SchedulerSharingTest;
TEST_F(SchedulerSharingDeathTest, StoppingSettlesEveryFuture) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto gpu = std::make_shared<SharingGpu>();
        gpu->stop_at = "r3.md";
        int settled = 0;
        {
          Scheduler scheduler({.jobs = 2, .gpu_concurrency = 3}, tools_, gpu);
          std::vector<std::future<Evaluation>> futures;
          for (const auto& input : replies(10))
            futures.push_back(
                scheduler.submit({.task = &task_, .arch = arch::Arch::kHopper, .input = input}));
          for (auto& future : futures) {
            if (future.wait_for(std::chrono::seconds(30)) != std::future_status::ready) continue;
            try {
              future.get();
              ++settled;
            } catch (const util::Stopped&) {
              ++settled;
            }
          }
        }
        std::_Exit(settled == 10 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace ptxbench::eval
