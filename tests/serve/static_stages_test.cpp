// The service with the real evaluator's stream: the static stages with nvcc, and a fake GPU for
// stages 5-8, so an evaluation submitted over HTTP comes back with the record `ptxbench eval
// --json` writes; without GPU stages a kernel lacking the requested families is
// INSTRUCTIONS_ABSENT and earns the compile reward.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/eval/engine.hpp"
#include "ptxbench/prompt/abi_example.hpp"
#include "ptxbench/serve/reward.hpp"
#include "service_harness.hpp"

namespace ptxbench::serve {
namespace {
using namespace ptxbench::testing;
using nlohmann::json;

// Passes every GPU stage with a 1.5x headline speedup; with `wait_for` set it first waits (that
// long at most) until `want_busy` slots sharing `busy` judge at once.
class FakeGpu final : public eval::GpuStages {
 public:
  std::chrono::milliseconds wait_for{0};
  int want_busy = 1;
  std::shared_ptr<std::atomic<int>> busy = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::atomic<int>> most_busy = std::make_shared<std::atomic<int>>(0);

  bool available(arch::Arch, std::string&) override { return true; }
  void run(const task::Task& task, const eval::CompiledCandidate&, eval::Evaluation& e) override {
    const int now = ++*busy;
    for (int seen = most_busy->load();
         now > seen && !most_busy->compare_exchange_weak(seen, now);) {
    }
    for (auto waited = std::chrono::milliseconds(0); waited < wait_for && *busy < want_busy;
         waited += std::chrono::milliseconds(10))
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    --*busy;
    for (auto s : {eval::Stage::kSanitize, eval::Stage::kCorrectness, eval::Stage::kDynamicSass,
                   eval::Stage::kTiming})
      e.stage(s).status = eval::StageStatus::kPassed;
    e.workloads = {{.workload = task.headline().name,
                    .headline = true,
                    .status = eval::Verdict::kPassed,
                    .speedup = 1.5}};
    e.verdict = eval::Verdict::kPassed;
  }
};

class StaticStages : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!compile::find_nvcc()) GTEST_SKIP() << "nvcc not installed: the static stages need it";
  }
  // The engine's own stream, as `ptxbench serve` has it evaluate (one slot per GPU).
  static serve::StreamEvaluateFn evaluate_with(std::vector<std::shared_ptr<eval::GpuStages>> gpus) {
    const bool gpu_stages = !gpus.empty() && gpus.front() != nullptr;
    return serve::evaluate_through(std::make_shared<eval::Engine>(
        eval::EvaluationSettings{.sandbox = sandbox::Mode::kOff, .gpu = gpu_stages}, "off",
        std::make_unique<eval::Scheduler>(eval::SchedulerOptions{.run_gpu_stages = gpu_stages},
                                          std::make_shared<util::SystemProcessRunner>(),
                                          std::move(gpus))));
  }
  static serve::StreamEvaluateFn evaluate_with(std::shared_ptr<eval::GpuStages> gpu) {
    return evaluate_with(std::vector<std::shared_ptr<eval::GpuStages>>{std::move(gpu)});
  }
  static json evaluate_over_http(ServiceHarness& harness, const json& body) {
    auto http = harness.client(kTrainer);
    http->set_read_timeout(600, 0);
    auto submitted = http->Post("/v1/evaluations", body.dump(), "application/json");
    EXPECT_EQ(submitted->status, 202) << submitted->body;
    const auto id = body_of(submitted)["id"].get<std::string>();
    auto record = harness.service().queue().wait_done(id);
    EXPECT_TRUE(record);
    return body_of(http->Get("/v1/evaluations/" + id))["record"];
  }
};

TEST_F(StaticStages, ACompiledCandidateGetsTheFakeGpusVerdict) {
  ServiceHarness harness(evaluate_with(std::make_shared<FakeGpu>()));
  const auto record = evaluate_over_http(harness, {{"task", "gemm_n7168_k5120"},
                                                   {"arch", "hopper"},
                                                   {"code", std::string(prompt::abi_example())},
                                                   {"source_name", "abi.cu"}});
  EXPECT_EQ(record["verdict"], "PASSED") << record.dump(2);
  EXPECT_EQ(record["source_name"], "abi.cu");
  EXPECT_FALSE(record["compile"]["command"].empty());
  EXPECT_EQ(record["schema_version"], eval::kSchemaVersion);
}

// Two GPUs: the service's evaluations are judged on both at once (and compile meanwhile).
TEST_F(StaticStages, EachGpuSlotJudgesAnEvaluationAtTheSameTime) {
  auto first = std::make_shared<FakeGpu>(), second = std::make_shared<FakeGpu>();
  for (auto* gpu : {first.get(), second.get()}) {
    gpu->wait_for = std::chrono::seconds(60);
    gpu->want_busy = 2;
  }
  second->busy = first->busy;
  second->most_busy = first->most_busy;
  ServiceHarness harness(evaluate_with({first, second}), {.limits = {.workers = 2}});
  auto http = harness.client(kTrainer);
  std::vector<std::string> ids;
  for (int i = 0; i < 2; ++i) {
    const json body{{"task", "gemm_n7168_k5120"},
                    {"arch", "hopper"},
                    {"code", std::string(prompt::abi_example()) + "\n// " + std::to_string(i)}};
    auto submitted = http->Post("/v1/evaluations", body.dump(), "application/json");
    ASSERT_EQ(submitted->status, 202) << submitted->body;
    ids.push_back(body_of(submitted)["id"]);
  }
  for (const auto& id : ids) {
    auto record = harness.service().queue().wait_done(id);
    ASSERT_TRUE(record);
    EXPECT_EQ(record->at("verdict"), "PASSED") << record->dump(2);
  }
  EXPECT_EQ(first->most_busy->load(), 2) << "the two GPU slots never judged at once";
}

TEST_F(StaticStages, CompileErrorsAndMissingCodeAreVerdicts) {
  ServiceHarness harness(evaluate_with(std::make_shared<FakeGpu>()));
  const auto broken = evaluate_over_http(
      harness, {{"task", "gemm_n7168_k5120"}, {"arch", "hopper"}, {"code", "this is not C++"}});
  EXPECT_EQ(broken["verdict"], "COMPILE_ERROR");
  const auto prose = evaluate_over_http(
      harness, {{"task", "gemm_n7168_k5120"}, {"arch", "hopper"}, {"reply", "no code today"}});
  EXPECT_EQ(prose["verdict"], "NO_CODE");
}

// The ABI example has no wgmma, TMA or mbarrier: without a GPU the static stage still decides
// that it cannot pass (INSTRUCTIONS_ABSENT), and the step earns the compile reward alone.
TEST_F(StaticStages, WithoutAGpuAStepLackingTheRequestedFamiliesEarnsTheCompileReward) {
  ServiceHarness harness(evaluate_with(nullptr));
  auto http = harness.client(kTrainer);
  http->set_read_timeout(600, 0);
  auto reset = body_of(http->Post("/v1/env/reset",
                                  json{{"task", "gemm_n7168_k5120"}, {"arch", "hopper"}}.dump(),
                                  "application/json"));
  const std::string reply = "```cuda\n" + std::string(prompt::abi_example()) + "\n```\n";
  auto step =
      http->Post("/v1/env/step", json{{"session", reset["session"]}, {"reply", reply}}.dump(),
                 "application/json");
  ASSERT_EQ(step->status, 200) << step->body;
  EXPECT_EQ(body_of(step)["record"]["verdict"], "INSTRUCTIONS_ABSENT");
  EXPECT_DOUBLE_EQ(body_of(step)["reward"].get<double>(), RewardConfig{}.compile);
}

}  // namespace
}  // namespace ptxbench::serve
