// The executed-instruction proof on the CPU: probe records joined with a synthetic disassembly,
// and the rules that turn counts into "substantial" family evidence. The instruction mix and
// counts of the tensor-core kernel are the ones measured on an H200 for
// tests/eval/proof/device's gemm_tma_wgmma (M = N = 128, K = 256: 16 HGMMA.64x64x16 pcs run 16
// times each, 8 UTMALDG pcs run 4 times each).
#include "ptxbench/eval/proof/dynamic_sass.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace ptxbench::eval {
namespace {

constexpr std::uint32_t kCandidateCrc = 59356154;
constexpr std::uint32_t kLibraryCrc = 2675734459;
constexpr double kSmallGemmFlops = 2.0 * 128 * 128 * 256;
constexpr double kHeadlineGemmFlops = 2.0 * 8192 * 7168 * 5120;

struct Pc {
  std::uint32_t offset;
  std::string opcode;
};

sass::SassKernel make_kernel(std::string name, const std::vector<Pc>& pcs) {
  sass::SassKernel kernel;
  kernel.name = std::move(name);
  for (const Pc& pc : pcs) {
    const std::string family = sass::family_of(pc.opcode, arch::Arch::kHopper);
    kernel.instructions.push_back({.offset = pc.offset, .opcode = pc.opcode, .family = family});
    if (!family.empty()) ++kernel.family_counts[family];
  }
  return kernel;
}

// The TMA + wgmma tile kernel: loads, waits, 16 HGMMAs, FFMA-free epilogue.
sass::SassKernel tensor_core_kernel() {
  std::vector<Pc> pcs = {
      {0x0, "LDC"}, {0x250, "SYNCS.EXCH.64"}, {0x6a0, "SYNCS.PHASECHK.TRANS64.TRYWAIT"}};
  for (std::uint32_t i = 0; i < 8; ++i) pcs.push_back({0x500 + 0x10 * i, "UTMALDG.2D"});
  pcs.push_back({0x700, "WARPGROUP.ARRIVE"});
  for (std::uint32_t i = 0; i < 16; ++i)
    pcs.push_back({0x760 + 0x10 * i, "HGMMA.64x64x16.F32.BF16"});
  pcs.push_back({0x900, "STG.E"});
  return make_kernel("gemm_tma_wgmma", pcs);
}

// An FFMA main loop; optionally with one HGMMA (executed or behind a false branch).
sass::SassKernel ffma_kernel(bool with_wgmma) {
  std::vector<Pc> pcs = {{0x0, "LDC"}, {0x100, "FFMA"}, {0x110, "FFMA"}, {0x200, "STG.E"}};
  if (with_wgmma) {
    pcs.push_back({0x300, "WARPGROUP.ARRIVE"});
    pcs.push_back({0x310, "HGMMA.64x64x16.F32.BF16"});
  }
  return make_kernel("_Z9gemm_ffmaPK13__nv_bfloat16S1_Pfiii", pcs);
}

ProbeReport probe(const std::string& kernel) {
  ProbeReport report;
  report.kernel = kernel;
  report.launched = true;
  report.launches = 1;
  report.launched_functions = {kernel};
  report.candidate_crc = kCandidateCrc;
  report.metrics = {"smsp__sass_inst_executed", "smsp__sass_thread_inst_executed_pred_on"};
  return report;
}

void add(ProbeReport& report, std::uint32_t pc, std::int64_t count,
         std::uint32_t crc = kCandidateCrc, std::string function = "") {
  report.records.push_back({.cubin_crc = crc,
                            .function = function.empty() ? report.kernel : std::move(function),
                            .pc_offset = pc,
                            .counts = {count, 32 * count}});
}

const FamilyEvidence& family(const ExecutionProof& proof, const std::string& name) {
  for (const auto& evidence : proof.families) {
    if (evidence.family == name) return evidence;
  }
  ADD_FAILURE() << "no evidence for " << name;
  static const FamilyEvidence none;
  return none;
}

ExecutionProof judge_one(const sass::SassKernel& kernel, const ProbeReport& report,
                         double task_flops, std::vector<std::string> requested = {"GMMA", "TMA"}) {
  sass::SassModule module;
  module.kernels = {kernel};
  return judge_execution(module, {join_probe(report, kernel, arch::Arch::kHopper)}, requested,
                         task_flops);
}

TEST(DynamicSass, TensorCoreMainLoopCarriesTheTasksFlops) {
  const auto kernel = tensor_core_kernel();
  auto report = probe(kernel.name);
  add(report, 0x250, 4);
  for (std::uint32_t i = 0; i < 8; ++i) add(report, 0x500 + 0x10 * i, 4);
  for (std::uint32_t i = 0; i < 16; ++i) add(report, 0x760 + 0x10 * i, 16);
  const auto proof = judge_one(kernel, report, kSmallGemmFlops);

  const auto& gmma = family(proof, "GMMA");
  EXPECT_TRUE(gmma.requested);
  EXPECT_EQ(gmma.static_count, 16);
  EXPECT_EQ(gmma.executed_count, 256);
  ASSERT_TRUE(gmma.flop_share.has_value());
  EXPECT_DOUBLE_EQ(*gmma.flop_share, 1.0);  // 256 warp-executions / 4 warps x 2*64*64*16
  EXPECT_TRUE(gmma.substantial);
  const auto& tma = family(proof, "TMA");
  EXPECT_EQ(tma.executed_count, 32);
  EXPECT_TRUE(tma.substantial);
  EXPECT_TRUE(proof.all_requested_substantial());
  EXPECT_TRUE(proof.conclusive);
  // A passing proof says what it proved (it used to say nothing): per kernel, each requested
  // family's executions and the share of the task's FLOPs.
  EXPECT_NE(proof.message.find("executed: "), std::string::npos) << proof.message;
  EXPECT_NE(proof.message.find("GMMA x256 (100"), std::string::npos) << proof.message;
  EXPECT_NE(proof.message.find("TMA x32"), std::string::npos) << proof.message;
  EXPECT_EQ(proof.message.find('\n'), std::string::npos) << proof.message;
  // Not requested, still reported.
  EXPECT_FALSE(family(proof, "SYNCS").requested);
  EXPECT_EQ(family(proof, "SYNCS").executed_count, 4);
}

TEST(DynamicSass, OneWgmmaBesideAnFfmaMainLoopIsNotSubstantial) {
  const auto kernel = ffma_kernel(/*with_wgmma=*/true);
  auto report = probe(kernel.name);
  const std::int64_t ctas = (8192 / 64) * (7168 / 64);
  add(report, 0x100, ctas * 8 * 5120);
  add(report, 0x110, ctas * 8 * 5120);
  add(report, 0x300, ctas * 4);
  add(report, 0x310, ctas * 4);  // one wgmma per CTA, each counted by its 4 warps
  const auto proof = judge_one(kernel, report, kHeadlineGemmFlops, {"GMMA"});
  const auto& gmma = family(proof, "GMMA");
  EXPECT_EQ(gmma.executed_count, ctas * 4);
  ASSERT_TRUE(gmma.flop_share.has_value());
  EXPECT_LT(*gmma.flop_share, 0.01);
  EXPECT_FALSE(gmma.substantial);
  EXPECT_FALSE(proof.all_requested_substantial());
  EXPECT_TRUE(proof.conclusive);
  EXPECT_NE(proof.message.find("of the task's FLOPs"), std::string::npos) << proof.message;
}

TEST(DynamicSass, WgmmaInABranchNeverTakenIsPresentNotExecuted) {
  const auto kernel = ffma_kernel(/*with_wgmma=*/true);
  auto report = probe(kernel.name);
  add(report, 0x0, 64);
  add(report, 0x100, 1 << 20);
  add(report, 0x110, 1 << 20);
  const auto proof = judge_one(kernel, report, kSmallGemmFlops, {"GMMA"});
  const auto& gmma = family(proof, "GMMA");
  EXPECT_EQ(gmma.static_count, 1);
  EXPECT_EQ(gmma.executed_count, 0);
  EXPECT_FALSE(gmma.flop_share.has_value());
  EXPECT_FALSE(gmma.substantial);
  EXPECT_TRUE(proof.conclusive);
  EXPECT_NE(proof.message.find("GMMA: present (1 instructions), not executed"), std::string::npos)
      << proof.message;
}

TEST(DynamicSass, CountsOfAnotherModuleAreNeverTheCandidates) {
  const auto kernel = ffma_kernel(/*with_wgmma=*/true);
  auto report = probe(kernel.name);
  add(report, 0x100, 1000);
  // A library GEMM (different cubin) and a library kernel wearing the candidate's name.
  add(report, 0x310, 1 << 20, kLibraryCrc, "nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NTN");
  add(report, 0x310, 1 << 20, kLibraryCrc);
  const KernelExecution joined = join_probe(report, kernel, arch::Arch::kHopper);
  EXPECT_EQ(joined.evidence, ExecutionEvidence::kMeasured);
  EXPECT_EQ(joined.foreign_records, 2);
  EXPECT_EQ(joined.executions.count("GMMA"), 0u);
  const auto proof = judge_one(kernel, report, kSmallGemmFlops, {"GMMA"});
  EXPECT_EQ(family(proof, "GMMA").executed_count, 0);
  EXPECT_FALSE(family(proof, "GMMA").substantial);
}

TEST(DynamicSass, AllZeroCountsAreInconclusiveNeverNotExecuted) {
  const auto kernel = tensor_core_kernel();
  auto report = probe(kernel.name);
  for (std::uint32_t i = 0; i < 16; ++i) add(report, 0x760 + 0x10 * i, 0);
  const KernelExecution joined = join_probe(report, kernel, arch::Arch::kHopper);
  EXPECT_EQ(joined.evidence, ExecutionEvidence::kInconclusive);
  const auto proof = judge_one(kernel, report, kSmallGemmFlops);
  EXPECT_FALSE(family(proof, "GMMA").executed_count.has_value());
  EXPECT_FALSE(proof.conclusive);
  EXPECT_NE(proof.message.find("could not be measured"), std::string::npos) << proof.message;
}

TEST(DynamicSass, AKernelTheCallNeverLaunchedExecutedNothing) {
  const auto kernel = tensor_core_kernel();
  ProbeReport report = probe(kernel.name);
  report.launched = false;
  report.launches = 0;
  report.launched_functions = {"_Z9gemm_ffmaPK13__nv_bfloat16S1_Pfiii"};
  EXPECT_EQ(join_probe(report, kernel, arch::Arch::kHopper).evidence,
            ExecutionEvidence::kNotLaunched);
  const auto proof = judge_one(kernel, report, kSmallGemmFlops);
  EXPECT_EQ(family(proof, "GMMA").executed_count, 0);
  EXPECT_TRUE(proof.conclusive);

  report.graph_launches = 1;  // the kernel may hide inside the graph
  EXPECT_EQ(join_probe(report, kernel, arch::Arch::kHopper).evidence,
            ExecutionEvidence::kInconclusive);
}

TEST(DynamicSass, AKernelLaunchedAfterTheObservedOneIsInconclusive) {
  const auto first = ffma_kernel(/*with_wgmma=*/true);
  const auto second = tensor_core_kernel();
  sass::SassModule module;
  module.kernels = {first, second};
  auto report = probe(first.name);
  report.launched_functions = {first.name, second.name};
  add(report, 0x100, 1000);
  const auto kernels = executions_from_probe(report, module, arch::Arch::kHopper);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].evidence, ExecutionEvidence::kMeasured);
  EXPECT_EQ(kernels[1].evidence, ExecutionEvidence::kInconclusive);
  EXPECT_NE(kernels[1].note.find("launched after"), std::string::npos);
  const auto proof = judge_execution(module, kernels, {"GMMA"}, kSmallGemmFlops);
  // The second kernel holds the GMMA that may have run: no claim either way.
  EXPECT_FALSE(family(proof, "GMMA").executed_count.has_value());
  EXPECT_FALSE(proof.conclusive);
}

TEST(DynamicSass, RecordsAtPcsOutsideTheDisassemblyAreNotTrusted) {
  const auto kernel = tensor_core_kernel();
  auto report = probe(kernel.name);
  add(report, 0x760, 16);
  add(report, 0x7770, 16);
  const KernelExecution joined = join_probe(report, kernel, arch::Arch::kHopper);
  EXPECT_EQ(joined.evidence, ExecutionEvidence::kInconclusive);
  EXPECT_EQ(joined.unknown_pcs, 1);
  EXPECT_TRUE(joined.executions.empty());
}

TEST(DynamicSass, AProbeErrorIsInconclusive) {
  const auto kernel = tensor_core_kernel();
  ProbeReport report;
  report.kernel = kernel.name;
  report.error = "the probe timed out after 120 s";
  const KernelExecution joined = join_probe(report, kernel, arch::Arch::kHopper);
  EXPECT_EQ(joined.evidence, ExecutionEvidence::kInconclusive);
  EXPECT_EQ(joined.note, report.error);
}

TEST(DynamicSass, ATokenTmaBesideATensorCoreLoopIsNotSubstantial) {
  const auto kernel = tensor_core_kernel();
  auto report = probe(kernel.name);
  for (std::uint32_t i = 0; i < 16; ++i) add(report, 0x760 + 0x10 * i, 16 * 1024);
  add(report, 0x500, 4);  // one load per CTA over the whole K loop
  const auto proof = judge_one(kernel, report, kSmallGemmFlops * 1024);
  EXPECT_TRUE(family(proof, "GMMA").substantial);
  EXPECT_EQ(family(proof, "TMA").executed_count, 4);
  EXPECT_FALSE(family(proof, "TMA").substantial);
  EXPECT_NE(proof.message.find("TMA: executed 4 times"), std::string::npos) << proof.message;
}

TEST(DynamicSass, ACountInOneKernelProvesExecutionWhileAnotherIsUnmeasured) {
  const auto main_kernel = tensor_core_kernel();
  auto other = tensor_core_kernel();
  other.name = "gemm_tma_wgmma_tail";
  sass::SassModule module;
  module.kernels = {main_kernel, other};
  auto measured = probe(main_kernel.name);
  for (std::uint32_t i = 0; i < 16; ++i) add(measured, 0x760 + 0x10 * i, 16);
  ProbeReport failed;
  failed.kernel = other.name;
  failed.error = "the probe killed by SIGSEGV";
  const auto proof = judge_execution(module,
                                     {join_probe(measured, main_kernel, arch::Arch::kHopper),
                                      join_probe(failed, other, arch::Arch::kHopper)},
                                     {"GMMA"}, kSmallGemmFlops);
  EXPECT_EQ(family(proof, "GMMA").executed_count, 256);
  EXPECT_TRUE(family(proof, "GMMA").substantial);
  EXPECT_NE(proof.message.find("gemm_tma_wgmma_tail: the probe killed by SIGSEGV"),
            std::string::npos)
      << proof.message;
}

TEST(DynamicSass, RequestedButAbsent) {
  const auto kernel = ffma_kernel(/*with_wgmma=*/false);
  auto report = probe(kernel.name);
  add(report, 0x100, 100);
  const auto proof = judge_one(kernel, report, kSmallGemmFlops, {"GMMA"});
  EXPECT_EQ(family(proof, "GMMA").static_count, 0);
  EXPECT_FALSE(family(proof, "GMMA").substantial);
  EXPECT_NE(proof.message.find("GMMA: not present in the binary"), std::string::npos);
}

TEST(DynamicSass, ApplyWritesKernelsAndFamilies) {
  const auto kernel = tensor_core_kernel();
  auto report = probe(kernel.name);
  for (std::uint32_t i = 0; i < 16; ++i) add(report, 0x760 + 0x10 * i, 16);
  const auto proof = judge_one(kernel, report, kSmallGemmFlops);
  Evaluation evaluation;
  evaluation.kernels.push_back({.name = kernel.name});
  evaluation.kernels.push_back({.name = "unprobed"});
  apply_execution_proof(proof, evaluation);
  EXPECT_EQ(evaluation.kernels[0].executed_families.at("GMMA"), 256);
  EXPECT_TRUE(evaluation.kernels[1].executed_families.empty());
  ASSERT_FALSE(evaluation.families.empty());
  EXPECT_EQ(evaluation.families[0].family, "GMMA");
}

TEST(DynamicSass, OnlyKernelsWithTrackedFamiliesAreProbed) {
  sass::SassModule module;
  module.kernels = {tensor_core_kernel(), ffma_kernel(false), ffma_kernel(true)};
  module.kernels[2].name = "with_wgmma";
  EXPECT_EQ(kernels_to_probe(module), (std::vector<std::string>{"gemm_tma_wgmma", "with_wgmma"}));
}

}  // namespace
}  // namespace ptxbench::eval
