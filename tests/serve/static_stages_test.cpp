// The service with the real evaluator's stream: the static stages with nvcc, and a fake GPU for
// stages 5-8, so an evaluation submitted over HTTP comes back with the record `ptxbench eval
// --json` writes; without GPU stages the verdict is NOT_RUN and the RL reward null.
#include <gtest/gtest.h>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/eval/evaluator.hpp"
#include "ptxbench/prompt/abi_example.hpp"
#include "service_harness.hpp"

namespace ptxbench::serve {
namespace {
using namespace ptxbench::testing;
using nlohmann::json;

// Passes every GPU stage with a 1.5x headline speedup.
class FakeGpu final : public eval::GpuStages {
 public:
  bool available(arch::Arch, std::string&) override { return true; }
  void run(const task::Task& task, const eval::CompiledCandidate&, eval::Evaluation& e) override {
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
  // The Evaluator's own stream, as `ptxbench serve` has it evaluate.
  static serve::StreamEvaluateFn evaluate_with(std::shared_ptr<eval::GpuStages> gpu) {
    return serve::evaluate_through(
        std::make_shared<eval::Evaluator>(eval::EvaluatorOptions{.run_gpu_stages = gpu != nullptr},
                                          std::make_shared<util::SystemProcessRunner>(), gpu));
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

TEST_F(StaticStages, CompileErrorsAndMissingCodeAreVerdicts) {
  ServiceHarness harness(evaluate_with(std::make_shared<FakeGpu>()));
  const auto broken = evaluate_over_http(
      harness, {{"task", "gemm_n7168_k5120"}, {"arch", "hopper"}, {"code", "this is not C++"}});
  EXPECT_EQ(broken["verdict"], "COMPILE_ERROR");
  const auto prose = evaluate_over_http(
      harness, {{"task", "gemm_n7168_k5120"}, {"arch", "hopper"}, {"reply", "no code today"}});
  EXPECT_EQ(prose["verdict"], "NO_CODE");
}

TEST_F(StaticStages, WithoutAGpuAStepIsNotRunAndEarnsNoReward) {
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
  EXPECT_EQ(body_of(step)["record"]["verdict"], "NOT_RUN");
  EXPECT_TRUE(body_of(step)["reward"].is_null());
}

}  // namespace
}  // namespace ptxbench::serve
