// The ncu fallback of the executed-instruction proof: parsing `ncu --csv --page raw` output
// (header of metric names, a units row, one row per launch), and filling the kernels the CUPTI
// probe left inconclusive. The disassembly is the TMA + wgmma tile kernel of dynamic_sass_test
// (16 HGMMA.64x64x16 pcs, 8 UTMALDG pcs); at M = N = 128, K = 256 it runs 256 HGMMA
// warp-executions (64 warpgroup MMAs x 4 warps) and 32 UTMALDG warp-executions.
#include "ptxbench/eval/proof/ncu_counts.hpp"

#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/util/fs.hpp"

#include "ptxbench/eval/evaluation_json.hpp"
#include "scripted_runner.hpp"

namespace ptxbench::eval {
namespace {

constexpr double kSmallGemmFlops = 2.0 * 128 * 128 * 256;
const std::string kGemm = "_Z14gemm_tma_wgmmaPK13__nv_bfloat16S1_Pf";
const std::string kFfma = "_Z9gemm_ffmaPK13__nv_bfloat16S1_Pfiii";

sass::SassKernel make_kernel(std::string name, const std::vector<std::string>& opcodes) {
  sass::SassKernel kernel;
  kernel.name = std::move(name);
  std::uint32_t offset = 0;
  for (const auto& opcode : opcodes) {
    const std::string family = sass::family_of(opcode, arch::Arch::kHopper);
    kernel.instructions.push_back({.offset = offset, .opcode = opcode, .family = family});
    offset += 0x10;
    if (!family.empty()) ++kernel.family_counts[family];
  }
  return kernel;
}

sass::SassKernel tensor_core_kernel(const std::string& second_shape = "") {
  std::vector<std::string> opcodes = {"LDC", "SYNCS.EXCH.64", "SYNCS.PHASECHK.TRANS64.TRYWAIT"};
  for (int i = 0; i < 8; ++i) opcodes.push_back("UTMALDG.2D");
  for (int i = 0; i < 16; ++i) opcodes.push_back("HGMMA.64x64x16.F32.BF16");
  if (!second_shape.empty()) {
    for (int i = 0; i < 16; ++i) opcodes.push_back(second_shape);
  }
  opcodes.push_back("STG.E");
  return make_kernel(kGemm, opcodes);
}

// A raw page as ncu prints it, after the program's own stdout and ncu's ==PROF== lines.
std::string raw_csv(std::int64_t gemm_gmma, std::int64_t gemm_tma) {
  std::string csv =
      "{\"status\":\"ok\"}\n"
      "==PROF== Connected to process 4242 (/opt/ptxbench/bin/ptxbench-worker)\n"
      "==PROF== Profiling \"gemm_tma_wgmma\" - 0: 0%....50%....100% - 1 pass\n"
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
      "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
      "\"smsp__sass_inst_executed.sum\",\"smsp__sass_inst_executed_op_shared_gmma.sum\","
      "\"smsp__sass_inst_executed_op_tma.sum\"\n"
      "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"inst\",\"inst\",\"inst\"\n";
  csv += "\"0\",\"4242\",\"ptxbench-worker\",\"127.0.0.1\",\"" + kGemm +
         "\",\"1\",\"13\",\"(384, 1, 1)\",\"(2, 2, 1)\",\"0\",\"9.0\",\"12,480\",\"" +
         std::to_string(gemm_gmma) + "\",\"" + std::to_string(gemm_tma) + "\"\n";
  // cuBLAS's kernel, launched by the candidate: HGMMA that must not count.
  csv +=
      "\"1\",\"4242\",\"ptxbench-worker\",\"127.0.0.1\",\"nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_"
      "NNT\",\"1\",\"13\",\"(384, 1, 1)\",\"(132, 1, 1)\",\"0\",\"9.0\",\"9,876,543\","
      "\"1,048,576\",\"8,192\"\n";
  csv += "\"2\",\"4242\",\"ptxbench-worker\",\"127.0.0.1\",\"" + kGemm +
         "\",\"1\",\"13\",\"(384, 1, 1)\",\"(2, 2, 1)\",\"0\",\"9.0\",\"12,480\",\"" +
         std::to_string(gemm_gmma) + "\",\"" + std::to_string(gemm_tma) + "\"\n";
  csv += "==PROF== Disconnected from process 4242\n";
  return csv;
}

const FamilyEvidence& family(const ExecutionProof& proof, const std::string& name) {
  const auto it = std::find_if(proof.families.begin(), proof.families.end(),
                               [&](const FamilyEvidence& f) { return f.family == name; });
  EXPECT_NE(it, proof.families.end()) << name;
  return *it;
}

NcuRequest request() {
  return NcuRequest{.ncu = "/usr/local/cuda/bin/ncu",
                    .program_argv = {"/opt/ptxbench/bin/ptxbench-worker", "candidate"},
                    .program_stdin = "{\"jobs\":[]}"};
}

TEST(NcuRawCsv, SumsLaunchesPerKernelAndSkipsUnitsAndProgramOutput) {
  const auto counts = parse_ncu_raw_csv(raw_csv(128, 16));
  ASSERT_TRUE(counts) << counts.error().message;
  ASSERT_EQ(counts->size(), 2u);
  EXPECT_EQ((*counts)[0].kernel, kGemm);
  EXPECT_EQ((*counts)[0].launches, 2);
  EXPECT_EQ((*counts)[0].gmma, 256);
  EXPECT_EQ((*counts)[0].tma, 32);
  EXPECT_EQ((*counts)[0].executed, 24960);
  EXPECT_EQ((*counts)[1].gmma, 1048576);  // thousands separators read
  EXPECT_EQ((*counts)[1].executed, 9876543);
}

TEST(NcuRawCsv, MissingHeaderOrMetricIsAnError) {
  EXPECT_FALSE(parse_ncu_raw_csv("==ERROR== the application returned an error\n"));
  EXPECT_FALSE(parse_ncu_raw_csv("\"ID\",\"Kernel Name\",\"smsp__sass_inst_executed.sum\"\n"));
}

TEST(NcuCounts, RunsNcuAroundTheProgramWithADeadline) {
  testing::ScriptedRunner runner;
  runner.on("--csv", testing::exited(0, raw_csv(256, 32)));
  const auto counts = run_ncu_counts(runner, request());
  ASSERT_TRUE(counts) << counts.error().message;
  ASSERT_EQ(runner.calls.size(), 1u);
  const auto& argv = runner.calls[0].argv;
  EXPECT_EQ(argv.front(), "/usr/local/cuda/bin/ncu");
  EXPECT_NE(std::find(argv.begin(), argv.end(),
                      "smsp__sass_inst_executed_op_shared_gmma.sum,smsp__sass_inst_executed_op_"
                      "tma.sum,smsp__sass_inst_executed.sum,"
                      "sass__inst_executed_per_opcode_with_modifier_all"),
            argv.end());
  EXPECT_EQ(argv[argv.size() - 2], "/opt/ptxbench/bin/ptxbench-worker");
  EXPECT_EQ(argv.back(), "candidate");
  EXPECT_EQ(runner.calls[0].stdin_text, request().program_stdin);
  EXPECT_EQ(runner.calls[0].timeout, std::chrono::seconds(120));
  // In a sandbox: ncu reaches the process it profiles over TCP on loopback.
  EXPECT_TRUE(runner.calls[0].loopback_ip_sockets);
}

// The toolkit's ncu is a launcher for an installation elsewhere (/opt/nvidia on the H200
// machine): a sandbox must show that folder, or ncu says "Nsight Compute is not installed".
TEST(NcuCounts, TheSandboxSeesTheInstallationBehindTheLauncher) {
  util::TempDir dir;
  const auto installed = dir.path() / "opt" / "nsight-compute" / "2025.3.1";
  std::filesystem::create_directories(installed);
  util::write_file_atomic(installed / "ncu", "#!/bin/sh\n");
  std::filesystem::create_directories(dir.path() / "cuda" / "bin");
  std::filesystem::create_symlink(installed / "ncu", dir.path() / "cuda" / "bin" / "ncu");
  const auto dirs = ncu_installation_dirs(dir.path() / "cuda" / "bin" / "ncu",
                                          {dir.path() / "opt", dir.path() / "absent"});
  EXPECT_EQ(dirs, (std::vector<std::filesystem::path>{std::filesystem::canonical(installed),
                                                      dir.path() / "opt"}));
}

// Each flag as `ncu --help` of Nsight Compute 2025.3 spells it, the program last.
TEST(NcuCounts, ArgumentsAreExactlyTheDocumentedFlags) {
  EXPECT_EQ(
      ncu_arguments(request()),
      (std::vector<std::string>{
          "/usr/local/cuda/bin/ncu", "--clock-control", "none", "--metrics",
          "smsp__sass_inst_executed_op_shared_gmma.sum,smsp__sass_inst_executed_op_tma.sum,"
          "smsp__sass_inst_executed.sum,sass__inst_executed_per_opcode_with_modifier_all",
          "--print-metric-instances", "details", "--csv", "--page", "raw", "--print-units", "base",
          "--print-kernel-base", "mangled", "/opt/ptxbench/bin/ptxbench-worker", "candidate"}));
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(NcuCounts, ResolvesABareNameThroughCudaHome) {
  const auto home =
      std::filesystem::temp_directory_path() / ("ptxbench-ncu-home-" + std::to_string(::getpid()));
  std::filesystem::create_directories(home / "bin");
  const auto tool = home / "bin" / "ptxbench-test-ncu";
  std::ofstream(tool) << "#!/bin/sh\n";
  std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
  {
    ScopedEnv cuda_home("CUDA_HOME", home.string());
    EXPECT_EQ(resolve_ncu("ptxbench-test-ncu"), tool);
    NcuRequest bare = request();
    bare.ncu = "ptxbench-test-ncu";
    EXPECT_EQ(ncu_arguments(bare).front(), tool.string());
    // Not found anywhere: the name is kept, and the spawn says it was not found.
    EXPECT_EQ(resolve_ncu("ptxbench-no-such-ncu"), "ptxbench-no-such-ncu");
  }
  // A path is used as given, even when it does not exist.
  EXPECT_EQ(resolve_ncu("/nonexistent/ncu"), "/nonexistent/ncu");
  std::filesystem::remove_all(home);
}

// "n/a" for one launch of a kernel leaves that kernel inconclusive; the other kernels keep
// their counts.
TEST(NcuRawCsv, AnUnreadableLaunchSpoilsOnlyItsKernel) {
  std::string csv = raw_csv(128, 16);
  const std::string nvjet_counts = "\"9,876,543\",\"1,048,576\",\"8,192\"";
  const auto at = csv.find(nvjet_counts);
  ASSERT_NE(at, std::string::npos);
  csv.replace(at, nvjet_counts.size(), "\"n/a\",\"n/a\",\"n/a\"");
  const auto counts = parse_ncu_raw_csv(csv);
  ASSERT_TRUE(counts) << counts.error().message;
  ASSERT_EQ(counts->size(), 2u);
  EXPECT_EQ((*counts)[0].gmma, 256);
  EXPECT_EQ((*counts)[0].unreadable_launches, 0);
  EXPECT_EQ((*counts)[1].unreadable_launches, 1);
  EXPECT_EQ((*counts)[1].launches, 0);

  sass::SassModule module;
  module.kernels.push_back(tensor_core_kernel());
  module.kernels.back().name = (*counts)[1].kernel;
  const KernelExecution spoiled =
      execution_from_ncu(*counts, module.kernels[0], arch::Arch::kHopper);
  EXPECT_EQ(spoiled.evidence, ExecutionEvidence::kInconclusive);
  EXPECT_NE(spoiled.note.find("could not count 1 of its 1 launches"), std::string::npos)
      << spoiled.note;
}

TEST(NcuCounts, TimeoutIsAnError) {
  testing::ScriptedRunner runner;
  util::ProcessResult late = testing::exited(0, raw_csv(256, 32));
  late.timed_out = true;
  runner.on("--csv", late);
  EXPECT_FALSE(run_ncu_counts(runner, request()));
}

// The probe failed outright and ncu printed no per-opcode counts: ncu proves GMMA and TMA; SYNCS
// stays unmeasured.
TEST(NcuFallback, FillsAFailedProbeAndLeavesOtherFamiliesUnmeasured) {
  sass::SassModule module;
  module.kernels.push_back(tensor_core_kernel());
  ProbeReport failed;
  failed.error = "CUPTI: profiling is not permitted";
  auto kernels = executions_from_probe(failed, module, arch::Arch::kHopper);
  ASSERT_EQ(kernels.size(), 1u);
  ASSERT_EQ(kernels[0].evidence, ExecutionEvidence::kInconclusive);

  testing::ScriptedRunner runner;
  runner.on("--csv", testing::exited(0, raw_csv(128, 16)));  // two launches of 128 and 16
  fill_inconclusive_with_ncu(runner, request(), module, arch::Arch::kHopper, kernels);
  EXPECT_EQ(kernels[0].evidence, ExecutionEvidence::kMeasured);
  EXPECT_EQ(kernels[0].method, "ncu");

  const ExecutionProof proof =
      judge_execution(module, kernels, {"GMMA", "TMA", "SYNCS"}, 2 * kSmallGemmFlops);
  EXPECT_EQ(family(proof, "GMMA").executed_count, 256);  // not the nvjet kernel's 1048576
  ASSERT_TRUE(family(proof, "GMMA").flop_share);
  EXPECT_DOUBLE_EQ(*family(proof, "GMMA").flop_share, 0.5);
  EXPECT_TRUE(family(proof, "GMMA").substantial);
  EXPECT_EQ(family(proof, "TMA").executed_count, 32);
  EXPECT_TRUE(family(proof, "TMA").substantial);
  EXPECT_FALSE(family(proof, "SYNCS").executed_count) << "no per-opcode counts, no SYNCS";
  EXPECT_FALSE(proof.conclusive);
  EXPECT_FALSE(proof.requested_measured_short);
  EXPECT_NE(proof.message.find("GMMA: executions measured by ncu"), std::string::npos)
      << proof.message;
  EXPECT_NE(proof.message.find("execution could not be measured"), std::string::npos)
      << proof.message;
}

// A two-kernel candidate: an FFMA kernel with one mbarrier arrive, then the tensor-core kernel.
sass::SassModule two_kernel_module() {
  sass::SassModule module;
  module.kernels.push_back(make_kernel(kFfma, {"LDC", "FFMA", "SYNCS.ARRIVE.TRANS64", "STG.E"}));
  module.kernels.push_back(tensor_core_kernel());
  return module;
}

// The probe's view of two_kernel_module(): it measured the first kernel (64 FFMA executions)
// and saw the second launched.
ProbeReport probe_of_the_first_kernel() {
  ProbeReport report;
  report.kernel = kFfma;
  report.launched = true;
  report.launches = 1;
  report.launched_functions = {kFfma, kGemm};
  report.candidate_crc = 7;
  report.metrics = {"smsp__sass_inst_executed"};
  report.records = {{.cubin_crc = 7, .function = kFfma, .pc_offset = 0x10, .counts = {64}}};
  return report;
}

// A second kernel, which the probe cannot see, is counted by ncu; the first stays the probe's.
TEST(NcuFallback, CountsTheLaterKernelOfAMultiKernelCandidate) {
  const sass::SassModule module = two_kernel_module();
  ProbeReport report = probe_of_the_first_kernel();
  report.records.push_back({.cubin_crc = 7, .function = kFfma, .pc_offset = 0x20, .counts = {4}});
  auto kernels = executions_from_probe(report, module, arch::Arch::kHopper);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].evidence, ExecutionEvidence::kMeasured);
  EXPECT_EQ(kernels[1].evidence, ExecutionEvidence::kInconclusive);

  testing::ScriptedRunner runner;
  runner.on("--csv", testing::exited(0, raw_csv(128, 16)));
  fill_inconclusive_with_ncu(runner, request(), module, arch::Arch::kHopper, kernels);
  EXPECT_EQ(kernels[0].method, "probe");
  EXPECT_EQ(kernels[1].method, "ncu");
  const ExecutionProof proof =
      judge_execution(module, kernels, {"GMMA", "TMA"}, 2 * kSmallGemmFlops);
  EXPECT_TRUE(proof.all_requested_substantial()) << proof.message;
  EXPECT_EQ(family(proof, "SYNCS").executed_count, 4);  // the probe's kernel counted SYNCS

  // The evaluation and its JSON say which tool measured each kernel.
  Evaluation evaluation;
  evaluation.kernels = {{.name = kFfma}, {.name = kGemm}};
  apply_execution_proof(proof, evaluation);
  EXPECT_EQ(evaluation.kernels[0].executed_by, "probe");
  EXPECT_EQ(evaluation.kernels[1].executed_by, "ncu");
  EXPECT_EQ(evaluation.kernels[1].executed_families.at("GMMA"), 256);
  const nlohmann::json json = to_json(evaluation);
  EXPECT_EQ(json["kernels"][1]["executed_by"], "ncu");
  const auto back = evaluation_from_json(json);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->kernels[0].executed_by, "probe");
  EXPECT_EQ(back->kernels[1].executed_by, "ncu");
}

// Nothing measured a kernel: no executed_by, and the JSON leaves the field out.
TEST(NcuFallback, AnUnmeasuredKernelHasNoExecutedBy) {
  sass::SassModule module;
  module.kernels.push_back(tensor_core_kernel());
  ProbeReport failed;
  failed.error = "no reply";
  auto kernels = executions_from_probe(failed, module, arch::Arch::kHopper);
  testing::ScriptedRunner runner;  // no scripted answer: ncu "could not start"
  fill_inconclusive_with_ncu(runner, request(), module, arch::Arch::kHopper, kernels);
  ASSERT_EQ(kernels[0].evidence, ExecutionEvidence::kInconclusive);
  EXPECT_NE(kernels[0].note.find("ncu: ncu could not start"), std::string::npos) << kernels[0].note;
  const ExecutionProof proof = judge_execution(module, kernels, {"GMMA"}, kSmallGemmFlops);
  Evaluation evaluation;
  evaluation.kernels = {{.name = kGemm}};
  apply_execution_proof(proof, evaluation);
  EXPECT_TRUE(evaluation.kernels[0].executed_by.empty());
  EXPECT_FALSE(to_json(evaluation)["kernels"][0].contains("executed_by"));
}

TEST(NcuFallback, MixedShapesAreAWeightedEstimate) {
  sass::SassModule module;
  module.kernels.push_back(tensor_core_kernel("HGMMA.64x128x16.F32.BF16"));
  const auto counts = parse_ncu_raw_csv(raw_csv(128, 16));
  ASSERT_TRUE(counts);
  const KernelExecution execution =
      execution_from_ncu(*counts, module.kernels[0], arch::Arch::kHopper);
  // Half the static GMMAs are 64x64x16 (131072 FLOPs), half 64x128x16 (262144).
  EXPECT_DOUBLE_EQ(execution.tensor_core_flops.at("GMMA"), 256.0 / 4 * (131072 + 262144) / 2);
  EXPECT_NE(execution.note.find("weighted"), std::string::npos) << execution.note;
}

// An FP8 kernel (QGMMA only): the op metric's warpgroup MMA count is its QGMMA, with the FLOPs of
// the k32 shape, so an FP8 task's requested QGMMA can be proven by the op metrics too.
TEST(NcuFallback, AnFp8KernelsWarpgroupMmaIsQgmma) {
  std::vector<std::string> opcodes = {"SYNCS.EXCH.64", "UTMALDG.2D"};
  for (int i = 0; i < 4; ++i) opcodes.push_back("QGMMA.64x64x32.F32.E4M3.E4M3");
  sass::SassModule module;
  module.kernels.push_back(make_kernel(kGemm, opcodes));
  const auto counts = parse_ncu_raw_csv(raw_csv(128, 16));
  ASSERT_TRUE(counts);
  const KernelExecution execution =
      execution_from_ncu(*counts, module.kernels[0], arch::Arch::kHopper);
  EXPECT_EQ(execution.executions.at("QGMMA"), 256);  // two launches of 128
  EXPECT_FALSE(execution.executions.contains("GMMA"));
  EXPECT_DOUBLE_EQ(execution.tensor_core_flops.at("QGMMA"), 256.0 / 4 * 2 * 64 * 64 * 32);
}

// Item: an unmeasurable proof is not "not executed"; a measured zero is.
TEST(NcuFallback, NcuFailureLeavesTheProofUnproven) {
  sass::SassModule module;
  module.kernels.push_back(tensor_core_kernel());
  ProbeReport failed;
  failed.error = "no reply";
  auto kernels = executions_from_probe(failed, module, arch::Arch::kHopper);
  testing::ScriptedRunner runner;
  runner.on("--csv", testing::exited(1, "==ERROR== ERR_NVGPUCTRPERM\n"));
  fill_inconclusive_with_ncu(runner, request(), module, arch::Arch::kHopper, kernels);
  EXPECT_EQ(kernels[0].evidence, ExecutionEvidence::kInconclusive);
  EXPECT_NE(kernels[0].note.find("ncu: "), std::string::npos) << kernels[0].note;
  const ExecutionProof proof = judge_execution(module, kernels, {"GMMA", "TMA"}, kSmallGemmFlops);
  EXPECT_FALSE(proof.all_requested_substantial());
  EXPECT_FALSE(proof.requested_measured_short);
  EXPECT_FALSE(family(proof, "GMMA").executed_count);
}

TEST(NcuFallback, AMeasuredZeroIsNotExecuted) {
  sass::SassModule module;
  module.kernels.push_back(tensor_core_kernel());
  ProbeReport failed;
  failed.error = "no reply";
  auto kernels = executions_from_probe(failed, module, arch::Arch::kHopper);
  testing::ScriptedRunner runner;
  runner.on("--csv", testing::exited(0, raw_csv(0, 16)));
  fill_inconclusive_with_ncu(runner, request(), module, arch::Arch::kHopper, kernels);
  const ExecutionProof proof = judge_execution(module, kernels, {"GMMA", "TMA"}, kSmallGemmFlops);
  EXPECT_EQ(family(proof, "GMMA").executed_count, 0);
  EXPECT_TRUE(proof.requested_measured_short);
  EXPECT_NE(proof.message.find("GMMA: present (16 instructions), not executed"), std::string::npos)
      << proof.message;
}

// The per-opcode cell as ncu 2025.3.1 printed it on the H200 (with --print-metric-instances
// details): the total, then each opcode with its modifiers.
TEST(NcuOpcodeInstances, ReadsEachOpcodeAndChecksTheTotal) {
  const auto counts = parse_ncu_opcode_instances(
      "491,520 (LDC: 65,536; EXIT: 65,536; ULDC.64: 32,768; ULDC: 32,768; STG.E: 32,768; S2UR: "
      "32,768; S2R: 32,768; LDG.E: 32,768; LDC.64: 32,768; ISETP.GE.AND: 32,768; IMAD.WIDE: "
      "32,768; IMAD: 32,768; FADD: 32,768)");
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->size(), 13u);
  EXPECT_EQ(counts->at("ISETP.GE.AND"), 32768);
  EXPECT_EQ(counts->at("LDC"), 65536);
  // A list that does not add up (cut short, misread) proves nothing.
  EXPECT_FALSE(parse_ncu_opcode_instances("491,520 (LDC: 65,536; EXIT: 65,536)"));
  EXPECT_FALSE(parse_ncu_opcode_instances("491,520"));  // the instances were not printed
  EXPECT_FALSE(parse_ncu_opcode_instances("n/a"));
  EXPECT_FALSE(parse_ncu_opcode_instances("12 (IMAD 12)"));
  EXPECT_FALSE(parse_ncu_opcode_instances("12 (IMAD: 12"));
  EXPECT_FALSE(parse_ncu_opcode_instances("12 (: 12)"));
  const auto none = parse_ncu_opcode_instances("0");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

std::string test_data(const std::string& name) {
  auto text = util::read_file(std::filesystem::path(PTXBENCH_TEST_DATA_DIR) / "ncu" / name);
  EXPECT_TRUE(text) << name;
  return text ? *text : std::string();
}

// The raw page ncu printed on the H200 for docs/gpu-results/2026-12-02d/programs/two_kernels.cu: a plain
// kernel, then two launches of a kernel that waits on an mbarrier (SYNCS in its SASS).
TEST(NcuRawCsv, ReadsThePerOpcodeCountsNcuPrintedOnTheH200) {
  const auto counts = parse_ncu_raw_csv(test_data("two_kernels_per_opcode.csv"));
  ASSERT_TRUE(counts) << counts.error().message;
  ASSERT_EQ(counts->size(), 2u);
  const NcuKernelCounts& plain = (*counts)[0];
  const NcuKernelCounts& waiting = (*counts)[1];
  EXPECT_EQ(plain.kernel, "_Z9plain_addPfi");
  EXPECT_EQ(plain.launches_without_opcodes, 0);
  EXPECT_EQ(plain.per_opcode.count("SYNCS.EXCH.64"), 0u);
  EXPECT_EQ(waiting.kernel, "_Z11on_mbarrierPfi");
  EXPECT_EQ(waiting.launches, 2);
  EXPECT_EQ(waiting.launches_without_opcodes, 0);
  // One mbarrier.init and one arrive per warp and launch (8192 blocks x 4 warps x 2 launches).
  EXPECT_EQ(waiting.per_opcode.at("SYNCS.EXCH.64"), 65536);
  EXPECT_EQ(waiting.per_opcode.at("SYNCS.ARRIVE.TRANS64.A1T0"), 65536);
  EXPECT_GE(waiting.per_opcode.at("SYNCS.PHASECHK.TRANS64.TRYWAIT"), 65536);

  // Every family of the later kernel is measured: SYNCS counted, GMMA a measured zero.
  const sass::SassKernel kernel =
      make_kernel("_Z11on_mbarrierPfi", {"SYNCS.EXCH.64", "SYNCS.ARRIVE.TRANS64.A1T0",
                                         "SYNCS.PHASECHK.TRANS64.TRYWAIT", "LDS", "STG.E"});
  const KernelExecution execution = execution_from_ncu(*counts, kernel, arch::Arch::kHopper);
  EXPECT_EQ(execution.evidence, ExecutionEvidence::kMeasured);
  EXPECT_FALSE(execution.measured_families) << "every family measured";
  EXPECT_GE(execution.executions.at("SYNCS"), 3 * 65536);
  EXPECT_TRUE(execution.measures("GMMA"));
  EXPECT_EQ(execution.executions.count("GMMA"), 0u);
  EXPECT_NE(execution.note.find("per-opcode"), std::string::npos) << execution.note;
}

// A raw page like the H200's for a two-kernel candidate: the per-opcode column gives the later
// kernel's SYNCS and its GMMA FLOPs from the executed shape.
std::string raw_csv_with_opcodes(const std::string& gemm_opcodes) {
  std::string csv =
      "\"ID\",\"Kernel Name\",\"sass__inst_executed_per_opcode_with_modifier_all\","
      "\"smsp__sass_inst_executed.sum\",\"smsp__sass_inst_executed_op_shared_gmma.sum\","
      "\"smsp__sass_inst_executed_op_tma.sum\"\n"
      "\"\",\"\",\"\",\"inst\",\"inst\",\"inst\"\n";
  csv += "\"0\",\"" + kFfma + "\",\"68 (FFMA: 64; SYNCS.ARRIVE.TRANS64: 4)\",\"68\",\"0\",\"0\"\n";
  csv += "\"1\",\"" + kGemm + "\",\"" + gemm_opcodes + "\",\"12,480\",\"256\",\"32\"\n";
  return csv;
}

TEST(NcuFallback, PerOpcodeCountsProveEveryFamilyOfALaterKernel) {
  const sass::SassModule module = two_kernel_module();
  const ProbeReport report = probe_of_the_first_kernel();
  auto kernels = executions_from_probe(report, module, arch::Arch::kHopper);
  ASSERT_EQ(kernels[1].evidence, ExecutionEvidence::kInconclusive);

  testing::ScriptedRunner runner;
  runner.on("--csv",
            testing::exited(
                0, raw_csv_with_opcodes("300 (HGMMA.64x64x16.F32.BF16: 256; UTMALDG.2D: 32; "
                                        "SYNCS.EXCH.64: 4; SYNCS.PHASECHK.TRANS64.TRYWAIT: 8)")));
  fill_inconclusive_with_ncu(runner, request(), module, arch::Arch::kHopper, kernels);
  ASSERT_EQ(kernels[1].method, "ncu");
  const ExecutionProof proof =
      judge_execution(module, kernels, {"GMMA", "TMA", "SYNCS"}, 2 * kSmallGemmFlops);
  EXPECT_TRUE(proof.all_requested_substantial()) << proof.message;
  EXPECT_EQ(family(proof, "SYNCS").executed_count, 12);  // the later kernel's, by ncu
  EXPECT_EQ(family(proof, "GMMA").executed_count, 256);
  ASSERT_TRUE(family(proof, "GMMA").flop_share);
  EXPECT_DOUBLE_EQ(*family(proof, "GMMA").flop_share, 0.5);  // 256 / 4 x 131072 of 2 x 4 M

  // The same candidate with SYNCS absent from the later kernel's counts: a measured zero.
  testing::ScriptedRunner without_syncs;
  without_syncs.on("--csv",
                   testing::exited(0, raw_csv_with_opcodes("288 (HGMMA.64x64x16.F32.BF16: 256; "
                                                           "UTMALDG.2D: 32)")));
  auto again = executions_from_probe(report, module, arch::Arch::kHopper);
  fill_inconclusive_with_ncu(without_syncs, request(), module, arch::Arch::kHopper, again);
  EXPECT_EQ(again[1].evidence, ExecutionEvidence::kMeasured);
  EXPECT_TRUE(again[1].measures("SYNCS"));
  EXPECT_EQ(again[1].executions.count("SYNCS"), 0u);
}

// A per-opcode list that does not add up leaves that kernel on the op metrics (GMMA and TMA).
TEST(NcuFallback, AnUnreadablePerOpcodeListFallsBackToTheOpMetrics) {
  const auto counts = parse_ncu_raw_csv(raw_csv_with_opcodes("300 (HGMMA.64x64x16.F32.BF16: 256)"));
  ASSERT_TRUE(counts) << counts.error().message;
  ASSERT_EQ(counts->size(), 2u);
  EXPECT_EQ((*counts)[1].launches_without_opcodes, 1);
  const KernelExecution execution =
      execution_from_ncu(*counts, tensor_core_kernel(), arch::Arch::kHopper);
  EXPECT_EQ(execution.evidence, ExecutionEvidence::kMeasured);
  ASSERT_TRUE(execution.measured_families);
  EXPECT_FALSE(execution.measures("SYNCS"));
  EXPECT_EQ(execution.executions.at("GMMA"), 256);
  EXPECT_NE(execution.note.find("GMMA and TMA only"), std::string::npos) << execution.note;
}

}  // namespace
}  // namespace ptxbench::eval
