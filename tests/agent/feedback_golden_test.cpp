// Feedback rendering against committed golden texts (tests/agent/data/feedback_*.txt). After a
// deliberate change of the rendering, regenerate them with PTXBENCH_UPDATE_GOLDEN=1 and review
// the diff.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ptxbench/agent/feedback.hpp"
#include "ptxbench/eval/correctness/generalisation.hpp"
#include "ptxbench/util/fs.hpp"
#include "sample_evaluations.hpp"

namespace ptxbench::agent {
namespace {
using eval::Verdict;

struct GoldenCase {
  std::string name;
  eval::Evaluation evaluation;
  FeedbackOptions options;
};

std::vector<GoldenCase> cases() {
  using namespace ptxbench::testing;
  return {
      {"no_code", no_code(), {.turn = 1, .max_turns = 8}},
      {"compile_error", compile_error(), {.turn = 2, .max_turns = 8}},
      {"not_run_hopper", not_run(), {.turn = 1, .max_turns = 4}},
      {"not_run_blackwell_last_turn", not_run(arch::Arch::kBlackwell), {.turn = 8, .max_turns = 8}},
      {"incorrect_numerical", incorrect(), {.turn = 3, .max_turns = 8}},
      {"instructions_not_executed", instructions_not_executed(), {.turn = 4, .max_turns = 8}},
      {"passed_below_target", passed(0.9027), {.turn = 5, .max_turns = 8, .target_speedup = 1.0}},
      {"passed_no_target", passed(1.1), {.turn = 7, .max_turns = 8}},
  };
}

TEST(FeedbackGolden, MatchesTheCommittedTexts) {
  const bool update = std::getenv("PTXBENCH_UPDATE_GOLDEN") != nullptr;
  for (const auto& golden : cases()) {
    std::string rendered = render_feedback(golden.evaluation, golden.options);
    auto path =
        std::filesystem::path(PTXBENCH_TEST_DATA_DIR) / ("feedback_" + golden.name + ".txt");
    if (update) {
      util::write_file_atomic(path, rendered);
      continue;
    }
    auto expected = util::read_file(path);
    ASSERT_TRUE(expected) << expected.error().message
                          << " (generate with PTXBENCH_UPDATE_GOLDEN=1)";
    EXPECT_EQ(rendered, *expected) << "golden " << path;
  }
  if (update) GTEST_SKIP() << "golden files rewritten, nothing compared";
}

// docs/correctness.md, "Unseen workloads": a hidden size that failed is counted, never named.
TEST(Feedback, AnUnseenFailureIsCountedButNotNamed) {
  eval::Evaluation e = testing::passed(1.1);
  e.workloads.push_back({.workload = "unseen_M8191",
                         .unseen = true,
                         .status = Verdict::kIncorrectNumerical,
                         .message = "C[8190, 7167] differs: M=8191",
                         .trials = 3});
  e.workloads.push_back({.workload = "unseen_M1", .unseen = true, .status = Verdict::kPassed});
  e.generalisation =
      eval::correctness::summarise(e.workloads, eval::correctness::UnseenPolicy::kRequire);
  EXPECT_EQ(e.generalisation->shown_passed, 2);
  EXPECT_EQ(e.generalisation->unseen_total, 2);
  EXPECT_EQ(e.generalisation->failed_unseen, std::vector<std::string>{"unseen_M8191"});
  e.verdict = Verdict::kIncorrectNumerical;
  e.message = eval::correctness::hidden_failure_message(
      *e.generalisation, *eval::correctness::first_unseen_failure(e.workloads));
  const std::string text = render_feedback(e, {});
  EXPECT_EQ(text.find("8191"), std::string::npos) << text;
  EXPECT_EQ(text.find("unseen_M1"), std::string::npos) << text;
  EXPECT_NE(text.find("hidden workloads (sizes the task does not list): 1 of 2 correct"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("not on 1 of 2 hidden workloads"), std::string::npos) << text;
  EXPECT_NE(text.find("its outputs were wrong"), std::string::npos) << text;
}

TEST(Feedback, InstructionsAbsentSaysWhatTheMachineCodeLacks) {
  eval::Evaluation e = testing::not_run();
  e.verdict = Verdict::kInstructionsAbsent;
  e.message = "requested instruction families absent from the machine code: GMMA";
  e.kernels = {testing::gemm_kernel()};
  e.families = {{.family = "GMMA", .requested = true, .static_count = 0},
                {.family = "TMA", .requested = true, .static_count = 4}};
  std::string text = render_feedback(e, {});
  EXPECT_NE(text.find("has no GMMA instruction, so it cannot pass"), std::string::npos) << text;
  e.kernels.clear();
  text = render_feedback(e, {});
  EXPECT_NE(text.find("Your file has no __global__ kernel"), std::string::npos) << text;
}

TEST(Feedback, SaysPlainlyWhichGpuStagesDidNotRun) {
  std::string text = render_feedback(testing::not_run(), {});
  for (const char* stage : {"sanitize", "correctness", "dynamic_sass", "timing"}) {
    EXPECT_NE(text.find(stage), std::string::npos) << stage;
  }
  EXPECT_NE(text.find("NOT run"), std::string::npos);
  EXPECT_NE(text.find("no GPU of this arch on this machine"), std::string::npos);
}

TEST(Feedback, ShowsErrorsTimesAndFamilies) {
  std::string incorrect = render_feedback(testing::incorrect(), {});
  EXPECT_NE(incorrect.find("max abs error 3.25"), std::string::npos);
  EXPECT_NE(incorrect.find("max rel error 0.87"), std::string::npos);
  std::string passed = render_feedback(testing::passed(0.9027), {.target_speedup = 1.0});
  EXPECT_NE(passed.find("kernel 0.8120 ms, baseline 0.7330 ms, speedup 0.90x"), std::string::npos);
  EXPECT_NE(passed.find("executed 2293760 times"), std::string::npos);
  EXPECT_NE(passed.find("target 1.00x"), std::string::npos);
}

// docs/correctness.md: the feedback names the deciding rule and gives both rules' figures, and
// shows a passed output where the rules disagree.
TEST(Feedback, ShowsBothCorrectnessRules) {
  eval::Evaluation e = testing::incorrect();
  eval::OutputCheck& failed = e.workloads[1].outputs[0];
  failed.rule = task::CorrectnessRule::kAsAccurateAsLibrary;
  failed.matches_library = false;
  eval::AccuracyFigures figures;
  figures.max_abs = {.candidate = 3.25, .library = 0.01, .budget = 0.5};
  figures.mean_abs = {.candidate = 0.2, .library = 0.001, .budget = 0.003};
  figures.relative_frobenius = {.candidate = 0.1, .library = 0.002, .budget = 0.008};
  figures.compared = 1000;
  failed.accuracy = figures;
  eval::OutputCheck& passed = e.workloads[0].outputs[0];
  passed.rule = task::CorrectnessRule::kAsAccurateAsLibrary;
  passed.matches_library = false;  // a near-tie the library's own error explains
  figures.max_abs = {.candidate = 0.5, .library = 0.5, .budget = 1.0};
  figures.mean_abs = {.candidate = 0.001, .library = 0.001, .budget = 0.003};
  figures.relative_frobenius = {.candidate = 0.002, .library = 0.002, .budget = 0.008};
  figures.passed = true;
  passed.accuracy = figures;
  std::string text = render_feedback(e, {});
  EXPECT_NE(text.find("decided by the rule \"as_accurate_as_library\": matches the library (the "
                      "errors above, against the library's output): no; as accurate as the "
                      "library: no (vs high-precision reference: max abs 3.25 (library 0.01)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("mean abs error 0.2 > budget 0.003 (library 0.001)"), std::string::npos);
  EXPECT_NE(text.find("  - output C: max abs error 0.0039"), std::string::npos)
      << "the passed output where the rules disagree is shown";
  EXPECT_NE(text.find("as accurate as the library: yes (vs high-precision reference: max abs 0.5"),
            std::string::npos);
  failed.accuracy.reset();
  failed.accuracy_unavailable = "no high-precision reference for op_type conv";
  EXPECT_NE(render_feedback(e, {}).find("as accurate as the library: not measured (no "
                                        "high-precision reference for op_type conv)"),
            std::string::npos);
}

TEST(Feedback, TrimsLongCompilerLogs) {
  std::string text = render_feedback(testing::compile_error(), {.compiler_log_lines = 5});
  EXPECT_NE(text.find("[... 56 more lines not shown]"), std::string::npos);
  EXPECT_EQ(text.find("candidate.cu(106)"), std::string::npos);
  EXPECT_NE(text.find("candidate.cu(105)"), std::string::npos);
}

TEST(TrimLog, CutsLinesBytesAndLongLines) {
  EXPECT_EQ(trim_log("a\nb\nc\n", 2, 100, 100), "a\nb\n[... 1 more lines not shown]\n");
  EXPECT_EQ(trim_log("abcdef\n", 10, 100, 3), "abc [...]\n");
  EXPECT_EQ(trim_log("aaaa\nbbbb\n", 10, 6, 100), "aaaa\n[... 1 more lines not shown]\n");
  EXPECT_EQ(trim_log("", 10, 100, 100), "");
}

}  // namespace
}  // namespace ptxbench::agent
