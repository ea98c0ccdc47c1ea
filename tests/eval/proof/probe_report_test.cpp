// The probe protocol: request and report JSON, and the trusted side's handling of whatever a
// probe process prints (it runs untrusted code, so nothing it says may throw).
#include "ptxbench/eval/proof/probe_report.hpp"

#include <gtest/gtest.h>

#include "ptxbench/eval/proof/dynamic_sass.hpp"
#include "ptxbench/eval/worker/worker_reply.hpp"
#include "scripted_runner.hpp"

namespace ptxbench::eval {
namespace {

using testing::exited;
using testing::ScriptedRunner;

ProbeReport sample_report() {
  ProbeReport report;
  report.kernel = "gemm_tma_wgmma";
  report.launched = true;
  report.launches = 2;
  report.launched_functions = {"_Z9gemm_ffmav", "gemm_tma_wgmma"};
  report.candidate_crc = 59356154;
  report.modules = {{.crc = 59356154, .bytes = 43080, .candidate = true},
                    {.crc = 2675734459u, .bytes = 8208, .candidate = false}};
  report.metrics = {"smsp__sass_inst_executed", "smsp__sass_inst_executed_op_shared_gmma"};
  report.records = {{.cubin_crc = 59356154,
                     .function = "gemm_tma_wgmma",
                     .pc_offset = 0x760,
                     .counts = {32, 32}}};
  return report;
}

TEST(ProbeReport, RoundTripsThroughJson) {
  const ProbeReport original = sample_report();
  const auto parsed = probe_report_from_json(to_json(original));
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->kernel, original.kernel);
  EXPECT_EQ(parsed->launches, 2);
  EXPECT_EQ(parsed->candidate_crc, original.candidate_crc);
  ASSERT_EQ(parsed->modules.size(), 2u);
  EXPECT_EQ(parsed->modules[1].crc, 2675734459u);
  ASSERT_EQ(parsed->records.size(), 1u);
  EXPECT_EQ(parsed->records[0].pc_offset, 0x760u);
  EXPECT_EQ(parsed->records[0].counts, (std::vector<std::int64_t>{32, 32}));
}

TEST(ProbeReport, MalformedReportsAreErrorsNotExceptions) {
  auto json = to_json(sample_report());
  json["records"][0]["counts"] = {1};  // fewer counts than metrics
  EXPECT_FALSE(probe_report_from_json(json).has_value());
  json = to_json(sample_report());
  json["records"][0]["pc"] = "0x760";
  EXPECT_FALSE(probe_report_from_json(json).has_value());
  json = to_json(sample_report());
  json["launched"] = "yes";
  EXPECT_FALSE(probe_report_from_json(json).has_value());
  EXPECT_FALSE(probe_report_from_json(nlohmann::json::array()).has_value());
  json = to_json(sample_report());
  json.erase("candidate_crc");
  const auto without_crc = probe_report_from_json(json);
  ASSERT_TRUE(without_crc.has_value());
  EXPECT_FALSE(without_crc->candidate_crc.has_value());
}

TEST(ProbeRequest, TravelsAsTheJobsRequest) {
  worker::WorkerJob job;
  job.request = ProbeRequest{.cubin = "/tmp/c.cubin"};
  const auto parsed = worker::job_from_json(worker::to_json(job));
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  const auto* request = std::get_if<ProbeRequest>(&parsed->request);
  ASSERT_NE(request, nullptr);
  EXPECT_EQ(request->cubin, "/tmp/c.cubin");
  EXPECT_EQ(worker::mode_of(parsed->request), "probe");
}

TEST(ProbeRequest, MalformedRequestsAreErrors) {
  EXPECT_FALSE(probe_request_from_json(nlohmann::json::object()).has_value());
  const auto wrong = probe_request_from_json({{"cubin", 7}});
  ASSERT_FALSE(wrong.has_value());
  EXPECT_NE(wrong.error().message.find("cubin"), std::string::npos) << wrong.error().message;
  const auto back = probe_request_from_json(to_json(ProbeRequest{.cubin = "/a.cubin"}));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->cubin, "/a.cubin");
}

ProbeInvocation invocation() {
  ProbeInvocation i;
  i.worker_argv = {"/opt/ptxbench/ptxbench-worker", "probe"};
  i.cubin = "/work/candidate.cubin";
  return i;
}

TEST(RunProbe, ReadsTheLastReplyLine) {
  ScriptedRunner runner;
  const std::string fake =
      worker::format_reply(worker::ReplyStatus::kOk, "forged", nlohmann::json{{"kernel", "x"}});
  runner.on("probe", exited(0, fake + "candidate output\n" +
                                   worker::format_reply(worker::ReplyStatus::kOk, "",
                                                        to_json(sample_report()))));
  const ProbeReport report = run_probe(runner, invocation());
  EXPECT_TRUE(report.error.empty()) << report.error;
  EXPECT_EQ(report.records.size(), 1u);
  ASSERT_EQ(runner.calls.size(), 1u);
  const auto job = worker::parse_job(*runner.calls[0].stdin_text);
  ASSERT_TRUE(job.has_value());
  ASSERT_TRUE(std::holds_alternative<ProbeRequest>(job->request));
  EXPECT_EQ(std::get<ProbeRequest>(job->request).cubin, "/work/candidate.cubin");
}

TEST(RunProbe, FailuresBecomeReportsWithAnError) {
  ScriptedRunner crashed;
  auto segv = exited(-1, "");
  segv.term_signal = 11;
  crashed.on("probe", segv);
  EXPECT_FALSE(run_probe(crashed, invocation()).error.empty());

  ScriptedRunner failed;
  failed.on("probe", exited(0, worker::format_reply(worker::ReplyStatus::kRuntimeError,
                                                    "an illegal memory access")));
  EXPECT_NE(run_probe(failed, invocation()).error.find("illegal memory access"), std::string::npos);

  ScriptedRunner silent;
  silent.on("probe", exited(0, "no reply line\n"));
  EXPECT_FALSE(run_probe(silent, invocation()).error.empty());
}

TEST(ProveExecution, OneProbeForTheKernelsWithTrackedFamilies) {
  sass::SassModule module;
  sass::SassKernel tensor;
  tensor.name = "gemm_tma_wgmma";
  tensor.instructions = {{.offset = 0x760, .opcode = "HGMMA.64x64x16.F32.BF16", .family = "GMMA"}};
  tensor.family_counts = {{"GMMA", 1}};
  sass::SassKernel plain;
  plain.name = "fill";
  plain.instructions = {{.offset = 0x0, .opcode = "STG.E"}};
  module.kernels = {tensor, plain};

  ScriptedRunner runner;
  auto report = sample_report();
  report.records[0].counts = {8192, 8192};
  runner.on("probe",
            exited(0, worker::format_reply(worker::ReplyStatus::kOk, "", to_json(report))));
  const auto kernels =
      executions_from_probe(run_probe(runner, invocation()), module, arch::Arch::kHopper);
  const ExecutionProof proof = judge_execution(module, kernels, {"GMMA"}, 2.0 * 8192 * 32768);
  EXPECT_EQ(runner.calls.size(), 1u);
  ASSERT_EQ(proof.kernels.size(), 1u);
  EXPECT_EQ(proof.kernels[0].evidence, ExecutionEvidence::kMeasured);
  ASSERT_FALSE(proof.families.empty());
  EXPECT_EQ(proof.families[0].executed_count, 8192);
  EXPECT_TRUE(proof.all_requested_substantial());
  // A passing proof says what it proved: per kernel, family, executions, FLOP share.
  EXPECT_NE(proof.message.find("executed: gemm_tma_wgmma: GMMA x"), std::string::npos)
      << proof.message;
  EXPECT_NE(proof.message.find("of the task's FLOPs"), std::string::npos) << proof.message;
}

}  // namespace
}  // namespace ptxbench::eval
