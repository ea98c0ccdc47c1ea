// GPU test: the Nsight Compute fallback of the executed-instruction proof, end to end. The
// two-kernel candidate data/two_kernels_ncu.cu launches a prologue first (the one kernel the
// CUPTI probe can measure) and then the honest TMA + wgmma GEMM, so the GEMM's GMMA and TMA
// counts can only come from ncu. With ncu it must pass with the GEMM's counts marked as ncu's;
// with no ncu it must stay unproven (INSTRUCTIONS_NOT_EXECUTED, "could not be proven"), never
// PASSED. Sanitizer and timing are off: they are not what this test is about. Skips, with the
// reason, where the GPU stages cannot run.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/eval/gpu_pipeline/stage_sequence.hpp"
#include "ptxbench/eval/scheduler.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/check.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::controls_test {
namespace {

constexpr const char* kTask = "gemm_n7168_k5120";
constexpr const char* kGemmKernel = "gemm_tma_wgmma";
constexpr const char* kPrologueKernel = "clear_output";

eval::Evaluation evaluate_two_kernels(const std::filesystem::path& ncu) {
  auto suite = task::load_suite(task::default_tasks_dir());
  PTXBENCH_CHECK(suite.has_value(), "tasks: " + suite.error().message);
  const task::Task* task = task::find_task(*suite, kTask);
  PTXBENCH_CHECK(task != nullptr, std::string("no task ") + kTask);
  auto text = util::read_file(std::filesystem::path(PTXBENCH_TEST_DATA_DIR) / "two_kernels_ncu.cu");
  PTXBENCH_CHECK(text.has_value(), "candidate: " + text.error().message);

  auto runner = std::make_shared<util::SystemProcessRunner>();
  eval::gpu_pipeline::StageSequenceOptions options{.worker = PTXBENCH_WORKER_PATH,
                                                   .sanitize = false,
                                                   .prove_execution = true,
                                                   .ncu = ncu,
                                                   .time = false};
  auto gpu = std::make_shared<eval::gpu_pipeline::StageSequence>(options, runner);
  eval::Scheduler evaluator({}, runner, gpu);
  return evaluator.evaluate(
      *task, arch::Arch::kHopper,
      {.text = *text, .is_markdown = false, .source_name = "two_kernels_ncu.cu"});
}

const eval::KernelReport* kernel_named(const eval::Evaluation& e, std::string_view part) {
  for (const auto& kernel : e.kernels) {
    if (kernel.name.find(part) != std::string::npos) return &kernel;
  }
  return nullptr;
}

const eval::FamilyEvidence* family_named(const eval::Evaluation& e, std::string_view name) {
  for (const auto& family : e.families) {
    if (family.family == name) return &family;
  }
  return nullptr;
}

std::string dump(const eval::Evaluation& e) {
  return eval::to_json(e).dump(2);
}

#define PTXBENCH_SKIP_WITHOUT_GPU_STAGES(e)                                              \
  do {                                                                                   \
    if ((e).verdict == eval::Verdict::kNotRun) {                                         \
      GTEST_SKIP() << "no Hopper GPU here: the GPU stages did not run: " << (e).message; \
    }                                                                                    \
  } while (false)

TEST(NcuFallbackOnGpu, ProvesTheSecondKernelOfATwoKernelCandidate) {
  const eval::Evaluation e = evaluate_two_kernels("ncu");
  PTXBENCH_SKIP_WITHOUT_GPU_STAGES(e);
  ASSERT_EQ(e.verdict, eval::Verdict::kPassed) << e.message << "\n" << dump(e);

  const eval::KernelReport* prologue = kernel_named(e, kPrologueKernel);
  const eval::KernelReport* gemm = kernel_named(e, kGemmKernel);
  ASSERT_NE(prologue, nullptr) << dump(e);
  ASSERT_NE(gemm, nullptr) << dump(e);
  // The probe measured the first kernel, ncu the second.
  EXPECT_EQ(prologue->executed_by, "probe") << dump(e);
  EXPECT_GT(prologue->executed_families.count("SYNCS"), 0u) << dump(e);
  EXPECT_EQ(gemm->executed_by, "ncu") << dump(e);
  ASSERT_GT(gemm->executed_families.count("GMMA"), 0u) << dump(e);
  // M = 8192: 128 x 112 tiles, 80 k-blocks of 4 wgmma each, counted once per warp (4 warps).
  EXPECT_EQ(gemm->executed_families.at("GMMA"), 128LL * 112 * 80 * 4 * 4);
  ASSERT_GT(gemm->executed_families.count("TMA"), 0u) << dump(e);
  EXPECT_GT(gemm->executed_families.at("TMA"), 0);
  // ncu's per-opcode counts measure every family of the later kernel, its mbarriers too.
  ASSERT_GT(gemm->executed_families.count("SYNCS"), 0u) << dump(e);
  EXPECT_GT(gemm->executed_families.at("SYNCS"), 0);

  // The FLOP share comes from the GEMM alone (the prologue holds no GMMA), so from ncu.
  const eval::FamilyEvidence* gmma = family_named(e, "GMMA");
  ASSERT_NE(gmma, nullptr);
  ASSERT_TRUE(gmma->flop_share.has_value()) << dump(e);
  EXPECT_GE(*gmma->flop_share, 0.5);
  EXPECT_NEAR(*gmma->flop_share, 1.0, 1e-6);
  EXPECT_TRUE(gmma->substantial);
  const eval::FamilyEvidence* tma = family_named(e, "TMA");
  ASSERT_NE(tma, nullptr);
  EXPECT_TRUE(tma->substantial) << dump(e);
  const eval::StageRecord* proof = e.find_stage(eval::Stage::kDynamicSass);
  ASSERT_NE(proof, nullptr);
  EXPECT_EQ(proof->status, eval::StageStatus::kPassed);
  EXPECT_NE(proof->message.find("GMMA: executions measured by ncu"), std::string::npos)
      << proof->message;
}

TEST(NcuFallbackOnGpu, WithoutNcuTheSecondKernelStaysUnproven) {
  const eval::Evaluation e = evaluate_two_kernels("/nonexistent/ncu");
  PTXBENCH_SKIP_WITHOUT_GPU_STAGES(e);
  ASSERT_EQ(e.verdict, eval::Verdict::kInstructionsNotExecuted) << e.message << "\n" << dump(e);
  EXPECT_NE(e.message.find("could not be proven"), std::string::npos) << e.message;
  // The evaluation's message is the first line; the proof stage's message has every kernel's.
  const eval::StageRecord* proof = e.find_stage(eval::Stage::kDynamicSass);
  ASSERT_NE(proof, nullptr);
  EXPECT_NE(proof->message.find("ncu could not start"), std::string::npos) << proof->message << "\n"
                                                                           << dump(e);

  const eval::KernelReport* gemm = kernel_named(e, kGemmKernel);
  ASSERT_NE(gemm, nullptr) << dump(e);
  EXPECT_TRUE(gemm->executed_by.empty()) << "nothing measured the GEMM: " << gemm->executed_by;
  EXPECT_TRUE(gemm->executed_families.empty()) << dump(e);
  const eval::FamilyEvidence* gmma = family_named(e, "GMMA");
  ASSERT_NE(gmma, nullptr);
  EXPECT_FALSE(gmma->executed_count.has_value()) << "unmeasured, not \"not executed\"";
  EXPECT_FALSE(gmma->substantial);
}

}  // namespace
}  // namespace ptxbench::controls_test
