// The whole CPU pipeline with the real toolchain (nvcc, ptxas, the wheels' cuobjdump and
// nvdisasm) on the test candidates, several at once as `ptxbench eval` runs them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/eval/scheduler.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval {
namespace {
using ::testing::HasSubstr;

CandidateInput candidate_file(const std::string& name) {
  auto text = util::read_file(std::string(PTXBENCH_CANDIDATES_DIR) + "/" + name);
  if (!text) throw std::runtime_error(text.error().message);
  return {.text = *text, .is_markdown = false, .source_name = name};
}

const FamilyEvidence& family(const Evaluation& e, std::string_view name) {
  auto it = std::find_if(e.families.begin(), e.families.end(),
                         [&](const FamilyEvidence& f) { return f.family == name; });
  if (it == e.families.end()) throw std::runtime_error("no family " + std::string(name));
  return *it;
}

class RealPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto nvcc = compile::find_nvcc(); !nvcc) GTEST_SKIP() << nvcc.error().message;
    auto loaded =
        task::load_task_file(task::default_tasks_dir() / "gemm" / "gemm_n7168_k5120.json");
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    task_ = std::move(*loaded);
  }
  task::Task task_;
};

TEST_F(RealPipeline, HopperCandidatesEachGetTheirVerdict) {
  auto wgmma = candidate_file("hopper_wgmma_tma.cu");
  CandidateInput reply{.text = "Here is my kernel.\r\n\r\n```cuda\r\n" + wgmma.text + "```\r\n",
                       .is_markdown = true,
                       .source_name = "reply.md"};
  const std::vector<CandidateInput> inputs{
      reply,
      candidate_file("syntax_error.cu"),
      candidate_file("calls_cublas.cu"),
      {.text = "Sorry, no kernel today.", .source_name = "empty.md"}};
  Scheduler evaluator({}, std::make_shared<util::SystemProcessRunner>(), nullptr);
  const auto results = evaluator.evaluate_many(task_, arch::Arch::kHopper, inputs);
  ASSERT_EQ(results.size(), 4u);

  const auto& good = results[0];
  EXPECT_EQ(good.verdict, Verdict::kNotRun) << good.message;
  EXPECT_THAT(good.message, HasSubstr("GPU stages not run"));
  for (auto name : {"GMMA", "TMA", "SYNCS"}) {
    EXPECT_TRUE(family(good, name).requested) << name;
    EXPECT_GT(family(good, name).static_count, 0) << name;
    EXPECT_EQ(family(good, name).executed_count, std::nullopt) << name;
  }
  ASSERT_EQ(good.kernels.size(), 1u);
  EXPECT_GT(good.kernels[0].registers, 0);
  EXPECT_THAT(good.kernels[0].display_name, HasSubstr("gemm_tma_wgmma"));
  EXPECT_THAT(good.compile.command, ::testing::Contains("-gencode=arch=compute_90a,code=sm_90a"));
  EXPECT_THAT(good.toolchain.at("nvcc"), HasSubstr("release 13"));
  EXPECT_THAT(good.toolchain.at("disassembler"), HasSubstr("nvdisasm"));
  EXPECT_GT(good.find_stage(Stage::kCompile)->seconds, 0);
  EXPECT_GT(good.find_stage(Stage::kStaticSass)->seconds, 0);

  EXPECT_EQ(results[1].verdict, Verdict::kCompileError);
  EXPECT_THAT(results[1].message, HasSubstr("error: expected a \";\""));
  EXPECT_EQ(results[2].verdict, Verdict::kForbidden);
  // Caught by the headers the preprocessor resolved, before the imports of the binary.
  EXPECT_THAT(results[2].message, HasSubstr("cublas_v2.h (cuBLAS)"));
  EXPECT_EQ(results[3].verdict, Verdict::kNoCode);

  // The record of each survives its JSON form.
  for (const auto& e : results) {
    auto back = evaluation_from_json(to_json(e));
    ASSERT_TRUE(back.has_value()) << back.error().message;
    EXPECT_EQ(to_json(*back), to_json(e));
  }
}

TEST_F(RealPipeline, Tcgen05CandidateIsStaticallyVerifiedForBlackwell) {
  Scheduler evaluator({}, std::make_shared<util::SystemProcessRunner>(), nullptr);
  const auto e =
      evaluator.evaluate(task_, arch::Arch::kBlackwell, candidate_file("blackwell_tcgen05.cu"));
  EXPECT_EQ(e.verdict, Verdict::kNotRun) << e.message;
  for (auto name : {"UTCMMA", "TMEM", "TMA"}) {
    EXPECT_TRUE(family(e, name).requested) << name;
    EXPECT_GT(family(e, name).static_count, 0) << name;
  }
  EXPECT_GT(family(e, "UTCBAR").static_count, 0);
  EXPECT_THAT(e.compile.command, ::testing::Contains("-gencode=arch=compute_100a,code=sm_100a"));
  EXPECT_THAT(e.message, ::testing::Not(HasSubstr("absent")));
}

// What the CPU can decide, it decides: a kernel without the requested families, a run() with
// no device code, and a run() with the wrong parameters each get a final verdict here.
TEST_F(RealPipeline, TheStaticStagesDecideWhatTheyCanWithoutAGpu) {
  auto host_only = util::read_file(std::string(PTXBENCH_TEST_DATA_DIR) + "/host_only_run.cu");
  ASSERT_TRUE(host_only.has_value());
  Scheduler evaluator({}, std::make_shared<util::SystemProcessRunner>(), nullptr);
  const auto results = evaluator.evaluate_many(
      task_, arch::Arch::kHopper,
      {candidate_file("ampere_mma_sync.cu"),
       {.text = *host_only, .is_markdown = false, .source_name = "host_only_run.cu"}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].verdict, Verdict::kInstructionsAbsent) << results[0].message;
  EXPECT_THAT(results[0].message,
              HasSubstr("requested instruction families absent from the machine code: GMMA, "
                        "TMA, SYNCS"));
  EXPECT_EQ(results[1].verdict, Verdict::kInstructionsAbsent) << results[1].message;
  EXPECT_THAT(results[1].message, HasSubstr("no device code"));
  EXPECT_TRUE(results[1].kernels.empty());

  // The wgmma GEMM's run(A, B, C) submitted for the 5-tensor attention task.
  auto attention =
      task::load_task_file(task::default_tasks_dir() / "mha_fwd" / "mha_fwd_lse_d128.json");
  ASSERT_TRUE(attention.has_value());
  const auto e =
      evaluator.evaluate(*attention, arch::Arch::kHopper, candidate_file("hopper_wgmma_tma.cu"));
  EXPECT_EQ(e.verdict, Verdict::kRuntimeError) << e.message;
  EXPECT_THAT(e.message, HasSubstr("run() takes 3 parameters"));
  EXPECT_THAT(e.message, HasSubstr("run(Q, K, V, O, LSE)"));
}

}  // namespace
}  // namespace ptxbench::eval
