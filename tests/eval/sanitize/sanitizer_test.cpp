// compute-sanitizer judging: the summary parser on output captured on an H200 (data/sanitizer),
// the outcome rules, and the run sequence against a scripted runner.
#include "ptxbench/eval/sanitize/sanitizer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "ptxbench/util/fs.hpp"
#include "scripted_runner.hpp"

namespace ptxbench::eval {
namespace {

using testing::exited;
using testing::ScriptedRunner;

std::string captured(const std::string& name) {
  auto text = util::read_file(std::string(PTXBENCH_TEST_DATA_DIR) + "/sanitizer/" + name);
  EXPECT_TRUE(text.has_value()) << name;
  return text ? *text : std::string();
}

TEST(SanitizerSummary, CleanMemcheckRun) {
  const auto summary = parse_sanitizer_output(captured("memcheck_clean.txt"));
  ASSERT_TRUE(summary.errors.has_value());
  EXPECT_EQ(*summary.errors, 0);
  EXPECT_FALSE(summary.program_failed);
  EXPECT_TRUE(summary.first_errors.empty());
}

TEST(SanitizerSummary, OutOfBoundsWriteCountsTheFirstSummaryNotTheUnprintedOnes) {
  const auto summary = parse_sanitizer_output(captured("memcheck_oob_write.txt"));
  ASSERT_TRUE(summary.errors.has_value());
  EXPECT_EQ(*summary.errors, 130);  // not the "30 errors were not printed" line
  EXPECT_TRUE(summary.program_failed);
  ASSERT_FALSE(summary.first_errors.empty());
  EXPECT_EQ(summary.first_errors.front(), "Invalid __global__ write of size 4 bytes");
  for (const auto& line : summary.first_errors) {
    EXPECT_EQ(line.find("Host Frame"), std::string::npos) << line;
    EXPECT_EQ(line.find("Program hit"), std::string::npos) << line;
  }
}

TEST(SanitizerSummary, RacecheckHasItsOwnSummaryLine) {
  const auto race = parse_sanitizer_output(captured("racecheck_shared_race.txt"));
  ASSERT_TRUE(race.errors.has_value());
  EXPECT_EQ(*race.errors, 1);
  EXPECT_EQ(race.warnings, 0);
  ASSERT_FALSE(race.first_errors.empty());
  EXPECT_TRUE(race.first_errors.front().starts_with("Error: Race reported between Write access"));

  const auto hazards = parse_sanitizer_output(captured("racecheck_shared_race_hazard.txt"));
  EXPECT_EQ(hazards.errors, 65536);

  const auto clean = parse_sanitizer_output(captured("racecheck_tma_wgmma.txt"));
  EXPECT_EQ(clean.errors, 0);
  EXPECT_EQ(clean.warnings, 0);
}

TEST(SanitizerSummary, ProgramLinesThatImitateTheToolDoNotOverrideItsLastSummary) {
  const auto summary = parse_sanitizer_output(
      "========= ERROR SUMMARY: 0 errors\n"  // printed by the program
      "========= Invalid __global__ read of size 2 bytes\n"
      "=========     at kernel+0x10\n"
      "========= ERROR SUMMARY: 1,234 errors\n");
  EXPECT_EQ(summary.errors, 1234);
}

TEST(SanitizerSummary, NoSummaryMeansTheToolDidNotFinish) {
  const auto summary = parse_sanitizer_output("========= COMPUTE-SANITIZER\nsome program output\n");
  EXPECT_FALSE(summary.errors.has_value());
}

TEST(SanitizerJudge, Outcomes) {
  const SanitizerSummary clean{.errors = 0};
  const SanitizerSummary dirty{.errors = 3};
  const SanitizerSummary none{};
  EXPECT_EQ(judge_sanitizer_run(exited(0, ""), clean), SanitizerOutcome::kClean);
  EXPECT_EQ(judge_sanitizer_run(exited(kSanitizerErrorExitCode, ""), dirty),
            SanitizerOutcome::kErrors);
  // The exit status alone is enough, whatever the text says.
  EXPECT_EQ(judge_sanitizer_run(exited(kSanitizerErrorExitCode, ""), clean),
            SanitizerOutcome::kErrors);
  EXPECT_EQ(judge_sanitizer_run(exited(1, ""), dirty), SanitizerOutcome::kErrors);
  EXPECT_EQ(judge_sanitizer_run(exited(1, ""), clean), SanitizerOutcome::kProgramFailed);
  EXPECT_EQ(judge_sanitizer_run(exited(1, ""), none), SanitizerOutcome::kToolFailed);
  auto timed_out = exited(-1, "");
  timed_out.timed_out = true;
  EXPECT_EQ(judge_sanitizer_run(timed_out, dirty), SanitizerOutcome::kTimedOut);
  util::ProcessResult not_started;
  EXPECT_EQ(judge_sanitizer_run(not_started, none), SanitizerOutcome::kToolFailed);
  auto stopped = exited(-1, "");
  stopped.stopped = true;
  EXPECT_EQ(judge_sanitizer_run(stopped, none), SanitizerOutcome::kStopped);
  SanitizerReport report{.runs = {{.tool = SanitizerTool::kMemcheck,
                                   .outcome = SanitizerOutcome::kStopped,
                                   .ending = "stopped after 2.0 s (no longer needed)"}}};
  EXPECT_FALSE(report.found_errors());
  ASSERT_EQ(report.not_checked().size(), 1u);  // inconclusive: "not checked", never "passed"
  EXPECT_NE(report.not_checked()[0].find("memcheck (stopped"), std::string::npos);
}

SanitizerRequest request() {
  SanitizerRequest r;
  r.compute_sanitizer = "/opt/cuda/bin/compute-sanitizer";
  r.program_argv = {"/opt/ptxbench/ptxbench-worker", "sanitize"};
  r.program_stdin = "{\"job\": 1}";
  return r;
}

// The tools run at once; one that reports errors stops the other, which says why it stopped.
TEST(RunSanitizer, MemcheckErrorsStopRacecheckAndReachTheMessage) {
  struct Runner final : util::ProcessRunner {
    util::ProcessResult run(const util::ProcessSpec& spec) override {
      const bool racecheck =
          std::find(spec.argv.begin(), spec.argv.end(), "racecheck") != spec.argv.end();
      if (!racecheck) return script.run(spec);
      // Racecheck runs until it is stopped (5 s at most: then the test fails, not hangs).
      script.run(spec);
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (!(spec.stop && spec.stop->load()) && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      auto result = testing::exited(-1, "");
      result.stopped = spec.stop && spec.stop->load();
      return result;
    }
    ScriptedRunner script;
  } runner;
  runner.script.on("--help",
                   exited(0, "  --padding <number>   Size in bytes for padding buffer\n"));
  runner.script.on("memcheck", exited(kSanitizerErrorExitCode, captured("memcheck_oob_write.txt")));
  const SanitizerReport report = run_sanitizer(runner, request());
  ASSERT_EQ(report.runs.size(), 2u);
  EXPECT_TRUE(report.found_errors());
  EXPECT_NE(report.message().find("memcheck: errors (130 errors)"), std::string::npos)
      << report.message();
  EXPECT_NE(report.message().find("Invalid __global__ write"), std::string::npos);
  EXPECT_EQ(report.runs[1].outcome, SanitizerOutcome::kStopped);
  EXPECT_EQ(report.runs[1].ending, "stopped: another tool reported errors");

  auto& calls = runner.script.calls;
  ASSERT_EQ(calls.size(), 3u);  // --help, then both tools
  const auto memcheck = std::find_if(calls.begin(), calls.end(), [](const auto& call) {
    return std::find(call.argv.begin(), call.argv.end(), "memcheck") != call.argv.end();
  });
  ASSERT_NE(memcheck, calls.end());
  const auto& argv = memcheck->argv;
  const auto has = [&argv](const std::string& word) {
    return std::find(argv.begin(), argv.end(), word) != argv.end();
  };
  EXPECT_TRUE(has("--padding"));
  EXPECT_TRUE(has(std::to_string(kSanitizerErrorExitCode)));
  EXPECT_EQ(argv.back(), "sanitize");  // the program's own argv comes last
  EXPECT_EQ(memcheck->stdin_text, request().program_stdin);
}

TEST(RunSanitizer, CleanMemcheckThenRacecheckWithoutPaddingWhereUnsupported) {
  ScriptedRunner runner;
  runner.on("--help", exited(0, "usage: compute-sanitizer [options]\n"));
  runner.on("memcheck", exited(0, captured("memcheck_tma_wgmma.txt")));
  runner.on("racecheck", exited(kSanitizerErrorExitCode, captured("racecheck_shared_race.txt")));
  const SanitizerReport report = run_sanitizer(runner, request());
  ASSERT_EQ(report.runs.size(), 2u);
  EXPECT_EQ(report.runs[0].outcome, SanitizerOutcome::kClean);
  EXPECT_EQ(report.runs[1].outcome, SanitizerOutcome::kErrors);
  EXPECT_TRUE(report.found_errors());
  for (const auto& call : runner.calls) {
    EXPECT_EQ(std::find(call.argv.begin(), call.argv.end(), "--padding"), call.argv.end());
  }
}

TEST(RunSanitizer, TimeoutsAndMissingSummariesAreInconclusiveNotFailures) {
  ScriptedRunner runner;
  runner.on("--help", exited(0, ""));
  auto slow = exited(-1, "========= COMPUTE-SANITIZER\n");
  slow.timed_out = true;
  runner.on("memcheck", exited(255, "========= Error: Device not supported\n"));
  runner.on("racecheck", slow);
  const SanitizerReport report = run_sanitizer(runner, request());
  ASSERT_EQ(report.runs.size(), 2u);
  EXPECT_EQ(report.runs[0].outcome, SanitizerOutcome::kToolFailed);
  EXPECT_EQ(report.runs[1].outcome, SanitizerOutcome::kTimedOut);
  EXPECT_FALSE(report.found_errors());
}

// A racecheck that ran out of time is "not checked", never a pass (17 of 21 slow candidates were
// reported as passing the stage after a 60 s racecheck timeout).
TEST(RunSanitizer, ATimedOutRacecheckIsNotChecked) {
  ScriptedRunner runner;
  runner.on("--help", exited(0, ""));
  auto slow = exited(-1, "========= COMPUTE-SANITIZER\n");
  slow.timed_out = true;
  runner.on("memcheck", exited(0, captured("memcheck_tma_wgmma.txt")));
  runner.on("racecheck", slow);
  const SanitizerReport report = run_sanitizer(runner, request());
  EXPECT_FALSE(report.found_errors());
  const auto unfinished = report.not_checked();
  ASSERT_EQ(unfinished.size(), 1u);
  EXPECT_NE(unfinished[0].find("racecheck (timed out"), std::string::npos) << unfinished[0];
  ASSERT_EQ(runner.calls.size(), 3u);  // --help, memcheck, racecheck
  // The tools run at once, so the order of their calls is the scheduler's: find racecheck's.
  const auto racecheck = std::find_if(runner.calls.begin(), runner.calls.end(), [](const auto& c) {
    return std::find(c.argv.begin(), c.argv.end(), "racecheck") != c.argv.end();
  });
  ASSERT_NE(racecheck, runner.calls.end());
  EXPECT_EQ(racecheck->timeout, std::chrono::seconds(15));
}

TEST(RunSanitizer, CleanRunsLeaveNothingUnchecked) {
  ScriptedRunner runner;
  runner.on("--help", exited(0, ""));
  runner.on("memcheck", exited(0, captured("memcheck_tma_wgmma.txt")));
  runner.on("racecheck", exited(0, captured("racecheck_tma_wgmma.txt")));
  EXPECT_TRUE(run_sanitizer(runner, request()).not_checked().empty());
}

// The harness's own cuDNN kernels (O and LSE of a backward task) are excluded where the tool can
// filter kernels; a tool that cannot is not given the option.
TEST(RunSanitizer, HarnessKernelsAreExcludedWhereTheToolCanFilter) {
  for (bool supported : {true, false}) {
    ScriptedRunner runner;
    runner.on("--help",
              exited(0, supported ? "  --kernel-name-exclude arg   Filter kernels\n" : ""));
    runner.on("memcheck", exited(0, captured("memcheck_tma_wgmma.txt")));
    runner.on("racecheck", exited(0, captured("racecheck_tma_wgmma.txt")));
    auto with_harness = request();
    with_harness.harness_kernel_substring = "cudnn_generated";
    run_sanitizer(runner, with_harness);
    for (std::size_t i = 1; i < runner.calls.size(); ++i) {
      const auto& argv = runner.calls[i].argv;
      const bool excluded =
          std::find(argv.begin(), argv.end(), "kns=cudnn_generated") != argv.end();
      EXPECT_EQ(excluded, supported);
    }
  }
}

// Both tools are under way before either ends: together they cost the longer run, and one
// timing out leaves the other's finding standing.
TEST(RunSanitizer, TheToolsRunAtOnceAndATimeoutDoesNotHideTheOther) {
  struct Runner final : util::ProcessRunner {
    util::ProcessResult run(const util::ProcessSpec& spec) override {
      auto result = script.run(spec);
      if (std::find(spec.argv.begin(), spec.argv.end(), "--help") != spec.argv.end()) return result;
      // Each tool waits (2 s at most) until the other has started.
      started.fetch_add(1);
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (started.load() < 2 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      overlapped = overlapped || started.load() >= 2;
      return result;
    }
    ScriptedRunner script;
    std::atomic<int> started{0};
    std::atomic<bool> overlapped{false};
  } runner;
  runner.script.on("--help", exited(0, ""));
  auto hung = exited(-1, "========= COMPUTE-SANITIZER\n");
  hung.timed_out = true;
  runner.script.on("memcheck", hung);
  runner.script.on("racecheck",
                   exited(kSanitizerErrorExitCode, captured("racecheck_shared_race.txt")));
  const SanitizerReport report = run_sanitizer(runner, request());
  EXPECT_TRUE(runner.overlapped.load()) << "the tools ran one after the other";
  ASSERT_EQ(report.runs.size(), 2u);
  EXPECT_EQ(report.runs[0].outcome, SanitizerOutcome::kTimedOut);
  EXPECT_EQ(report.runs[1].outcome, SanitizerOutcome::kErrors);
  EXPECT_TRUE(report.found_errors());
  EXPECT_NE(report.message().find("racecheck: errors"), std::string::npos) << report.message();
}

}  // namespace
}  // namespace ptxbench::eval

namespace ptxbench::eval {
namespace {

SanitizerReport report_with_lines(std::vector<std::string> lines) {
  SanitizerReport report;
  SanitizerRun run;
  run.tool = SanitizerTool::kRacecheck;
  run.outcome = SanitizerOutcome::kErrors;
  run.summary.errors = 1;
  run.summary.first_errors = std::move(lines);
  report.runs.push_back(run);
  return report;
}

// The line racecheck printed on the H200 for the control that calls cuBLAS through its ELF
// symbol table (docs/gpu-results/2026-11-29-run4).
TEST(SanitizerForeignKernels, ErrorsInsideALibraryKernelNameIt) {
  auto report = report_with_lines(
      {"Error: Race reported between Read access at nvjet_sm90_tst_64x72_64x12_4x1_v_bz_TNT+0xab0",
       "and Write access at nvjet_sm90_tst_64x72_64x12_4x1_v_bz_TNT+0x2e30 [448 hazards]"});
  auto named = kernels_in_errors(report);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0], "nvjet_sm90_tst_64x72_64x12_4x1_v_bz_TNT");
  auto foreign = foreign_kernels(named, {"_Z11gemm_kernelPK13__nv_bfloat16S1_PS_iii"});
  ASSERT_EQ(foreign.size(), 1u);
  EXPECT_EQ(foreign[0], named[0]);
}

TEST(SanitizerForeignKernels, ErrorsInTheCandidatesOwnKernelAreNotForeign) {
  auto report = report_with_lines({"Invalid __global__ write of size 2 bytes",
                                   "at ns::gemm_kernel<128>(const __nv_bfloat16 *, int)+0x1c0"});
  auto named = kernels_in_errors(report);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_TRUE(foreign_kernels(named, {"_ZN2ns11gemm_kernelILi128EEEvPK13__nv_bfloat16i"}).empty());
  // The same error with a kernel list that lacks it is foreign.
  EXPECT_EQ(foreign_kernels(named, {"_Z10other_kernv"}).size(), 1u);
}

// What memcheck printed on the H200 for solutions/broken/gemm_tail_writes_past_c.cu: the write is
// located in a __device__ function the candidate wrote, not in its kernel (run 5).
TEST(SanitizerForeignKernels, AnErrorInTheCandidatesDeviceFunctionIsItsOwn) {
  auto report = report_with_lines(
      {"Invalid __global__ write of size 4 bytes",
       "at gemm::store_tile_direct(__nv_bfloat16 *, int, const float (&)[128], const gemm::Tile "
       "&, int, int)+0x12c0 in candidate.cu:736",
       "by thread (352,0,0) in block (12,0,0)",
       "Device Frame: gemm::consume(gemm::SharedStorage &, __nv_bfloat16 *, int)+0xfc0 in "
       "candidate.cu:784",
       "Device Frame: gemm::gemm_bf16_nt_warp_specialized_kernel(CUtensorMap_st, "
       "CUtensorMap_st, __nv_bfloat16 *, int, int, int, float *, int *)+0x690 in "
       "candidate.cu:824"});
  const std::vector<std::string> own = {
      "_ZN4gemm36gemm_bf16_nt_warp_specialized_kernelE14CUtensorMap_stS0_P13__nv_bfloat16iiiPfPi"};
  // By names alone the device function looks foreign; the frames and the line information say
  // it is the candidate's.
  EXPECT_EQ(foreign_kernels(kernels_in_errors(report), own).size(), 1u);
  EXPECT_TRUE(errors_in_candidate_code(report, own, "candidate.cu"));
  // Without line information the kernel's device frame still says so.
  EXPECT_TRUE(errors_in_candidate_code(report, own, "other.cu"));
  // Neither the file nor a kernel of the candidate: not its code.
  EXPECT_FALSE(errors_in_candidate_code(report, {"_Z10other_kernv"}, "other.cu"));
  EXPECT_TRUE(library_kernels_in_errors(report, own, "candidate.cu").empty());
}

TEST(SanitizerForeignKernels, ALibraryKernelsRaceIsNotTheCandidatesCode) {
  auto report = report_with_lines(
      {"Error: Race reported between Read access at nvjet_sm90_tst_64x72_64x12_4x1_v_bz_TNT+0xab0",
       "and Write access at nvjet_sm90_tst_64x72_64x12_4x1_v_bz_TNT+0x2e30 [448 hazards]"});
  EXPECT_FALSE(errors_in_candidate_code(report, {"_Z11gemm_kernelPK13__nv_bfloat16S1_PS_iii"},
                                        "candidate.cu"));
  EXPECT_EQ(library_kernels_in_errors(report, {"_Z11gemm_kernelPK13__nv_bfloat16S1_PS_iii"},
                                      "candidate.cu"),
            std::vector<std::string>{"nvjet_sm90_tst_64x72_64x12_4x1_v_bz_TNT"});
  // Line information of the candidate's file anywhere in the report makes it the candidate's,
  // also through a directory.
  auto own_file = report_with_lines(
      {"Invalid __global__ read of size 2 bytes", "at helper(int)+0x10 in /tmp/x/candidate.cu:12"});
  EXPECT_TRUE(errors_in_candidate_code(own_file, {"_Z6kernelv"}, "candidate.cu"));
  auto lookalike = report_with_lines({"at helper(int)+0x10 in my_candidate.cu:12"});
  EXPECT_FALSE(errors_in_candidate_code(lookalike, {"_Z6kernelv"}, "candidate.cu"));
}

// The backward task's inputs O and LSE come from cuDNN's forward in the candidate's process:
// racecheck reported a race inside that kernel and the candidate was judged FORBIDDEN for it.
TEST(SanitizerForeignKernels, TheHarnessesOwnLibraryKernelsAreNotChargedToTheCandidate) {
  const std::vector<std::string> own = {"_Z15backward_scoresv", "_Z18backward_gradientsv"};
  const std::string harness = harness_kernel_substring(task::OpType::kMhaBwd, own);
  EXPECT_EQ(harness, "cudnn_generated");
  EXPECT_EQ(harness_kernel_substring(task::OpType::kGemm, own), "");
  // A candidate kernel that carries the name excuses nothing.
  EXPECT_EQ(harness_kernel_substring(task::OpType::kMhaBwd, {"_Z26my_cudnn_generated_kernelv"}),
            "");
  auto report = report_with_lines(
      {"Error: Race reported between Read access at "
       "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128+0x1a0",
       "and Write access at "
       "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128+0x2e0"});
  const auto foreign = library_kernels_in_errors(report, own, "candidate.cu");
  ASSERT_EQ(foreign.size(), 1u);
  EXPECT_TRUE(kernels_not_from_harness(foreign, harness).empty());
  // A library kernel the candidate launched (cuBLAS here) is still charged.
  EXPECT_EQ(kernels_not_from_harness({"nvjet_sm90_tst_64x72_64x12_4x1_v_bz_TNT"}, harness).size(),
            1u);
}

TEST(SanitizerForeignKernels, NoLocationNoNames) {
  EXPECT_TRUE(
      kernels_in_errors(report_with_lines({"Program hit cudaErrorIllegalAddress"})).empty());
}

}  // namespace
}  // namespace ptxbench::eval
