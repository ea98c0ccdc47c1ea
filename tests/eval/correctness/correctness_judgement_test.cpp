#include "ptxbench/eval/correctness/correctness_judgement.hpp"

#include <gtest/gtest.h>

#include "ptxbench/eval/correctness/accuracy_totals.hpp"

namespace ptxbench::eval::worker {
namespace {

using nlohmann::json;

WorkerJob gemm_job(int trials = 2) {
  WorkerJob job;
  job.workload = "M4";
  job.trials = trials;
  job.inputs = {{"A", task::DType::kBFloat16, {4, 3}, {}},
                {"B", task::DType::kBFloat16, {5, 3}, {}}};
  job.outputs = {{"C", task::DType::kBFloat16, {4, 5}, {}}};
  return job;
}

// Replies of two workers for `trials` clean trials of one job.
struct Replies {
  json candidate;
  json judge;
};

Replies clean_replies(int trials) {
  Replies r{json{{"jobs", json::array({json{{"workload", "M4"}, {"trials", json::array()}}})}},
            json{{"jobs", json::array({json{{"workload", "M4"}, {"trials", json::array()}}})}}};
  for (int t = 0; t < trials; ++t) {
    json hashes = json::array({"aa", "bb"});
    r.candidate["jobs"][0]["trials"].push_back({{"trial", t},
                                                {"seed", "7"},
                                                {"input_hashes_before", hashes},
                                                {"input_hashes_after", hashes}});
    r.judge["jobs"][0]["trials"].push_back(
        {{"trial", t},
         {"seed", "7"},
         {"input_hashes", hashes},
         {"outputs",
          json::array({json{{"name", "C"}, {"elements", 20}, {"max_abs_error", 0.001}}})}});
  }
  return r;
}

// The replies read as StageSequence reads them, then judged; an unreadable reply is ptxbench's
// INTERNAL_ERROR.
CorrectnessJudgement judge(const std::vector<WorkerJob>& jobs, const std::vector<bool>& headline,
                           const json& candidate, const json& judge) {
  auto c = correctness::candidate_reply_from_json(candidate);
  auto j = correctness::judge_reply_from_json(judge);
  if (!c || !j) {
    return {.verdict = Verdict::kInternalError,
            .message = !c ? c.error().message : j.error().message};
  }
  return judge_correctness(jobs, headline, *c, *j);
}

TEST(CorrectnessJudgement, CleanTrialsPass) {
  auto r = clean_replies(2);
  auto j = judge({gemm_job()}, {true}, r.candidate, r.judge);
  EXPECT_EQ(j.verdict, Verdict::kPassed) << j.message;
  ASSERT_EQ(j.workloads.size(), 1u);
  EXPECT_TRUE(j.workloads[0].headline);
  EXPECT_EQ(j.workloads[0].trials, 2);
  ASSERT_EQ(j.workloads[0].outputs.size(), 1u);
  EXPECT_TRUE(j.workloads[0].outputs[0].passed);
  EXPECT_DOUBLE_EQ(j.workloads[0].outputs[0].matched_ratio, 1.0);
}

TEST(CorrectnessJudgement, MismatchNamesTrialOutputAndElement) {
  auto r = clean_replies(2);
  auto& out = r.judge["jobs"][0]["trials"][1]["outputs"][0];
  out["mismatches"] = 3;
  out["first_bad_index"] = 7;  // row 1, column 2 of a 4x5 output
  out["max_abs_error"] = 0.5;
  auto j = judge({gemm_job()}, {false}, r.candidate, r.judge);
  EXPECT_EQ(j.verdict, Verdict::kIncorrectNumerical);
  EXPECT_NE(j.message.find("trial 2"), std::string::npos) << j.message;
  EXPECT_NE(j.message.find("C[1, 2]"), std::string::npos) << j.message;
  EXPECT_NE(j.message.find("3 of 20"), std::string::npos) << j.message;
  EXPECT_FALSE(j.workloads[0].outputs[0].passed);
  EXPECT_DOUBLE_EQ(j.workloads[0].outputs[0].max_abs_error, 0.5);
  EXPECT_EQ(j.workloads[0].outputs[0].first_bad_index, 7);
}

// The judge's "accuracy" totals for a 20-element output: the library off the reference by 0.01
// per element; the candidate by `candidate_error` (mean and max), losing `duels_lost` duels.
json accuracy_record(double candidate_error, std::int64_t duels_lost, std::int64_t first_lost) {
  correctness::AccuracyTotals t;
  t.elements = t.compared = 20;
  t.candidate = {.max_abs = candidate_error,
                 .sum_abs = 20 * candidate_error,
                 .sum_squares = 20 * candidate_error * candidate_error};
  t.library = {.max_abs = 0.01, .sum_abs = 0.2, .sum_squares = 0.002};
  t.reference = {.max_abs = 2, .sum_abs = 20, .sum_squares = 40};
  t.candidate_duels_lost = duels_lost;
  t.first_lost_index = first_lost;
  return correctness::to_json(t);
}

TEST(CorrectnessJudgement, AsAccurateDecidesByDefaultAndKeepsBothVerdicts) {
  auto r = clean_replies(2);
  for (auto& trial : r.judge["jobs"][0]["trials"]) {
    trial["outputs"][0]["accuracy"] = accuracy_record(0.008, 0, -1);
  }
  // The element rule against the library fails (a near-tie), the library's error explains it.
  auto& out = r.judge["jobs"][0]["trials"][1]["outputs"][0];
  out["mismatches"] = 1;
  out["first_bad_index"] = 3;
  auto j = judge({gemm_job()}, {true}, r.candidate, r.judge);
  EXPECT_EQ(j.verdict, Verdict::kPassed) << j.message;
  const OutputCheck& check = j.workloads[0].outputs[0];
  EXPECT_TRUE(check.passed);
  EXPECT_EQ(check.rule, task::CorrectnessRule::kAsAccurateAsLibrary);
  EXPECT_FALSE(check.matches_library);
  ASSERT_TRUE(check.accuracy.has_value());
  EXPECT_TRUE(check.accuracy->passed);
  EXPECT_DOUBLE_EQ(check.accuracy->mean_abs.library, 0.01);
}

TEST(CorrectnessJudgement, LessAccurateThanTheLibraryFailsWhileMatchingIt) {
  auto r = clean_replies(2);
  r.judge["jobs"][0]["trials"][0]["outputs"][0]["accuracy"] = accuracy_record(0.008, 0, -1);
  r.judge["jobs"][0]["trials"][1]["outputs"][0]["accuracy"] = accuracy_record(0.09, 4, 7);
  auto j = judge({gemm_job()}, {false}, r.candidate, r.judge);
  EXPECT_EQ(j.verdict, Verdict::kIncorrectNumerical);
  EXPECT_NE(j.message.find("trial 2"), std::string::npos) << j.message;
  EXPECT_NE(j.message.find("less accurate than the library"), std::string::npos) << j.message;
  EXPECT_NE(j.message.find("mean abs error 0.09 > budget"), std::string::npos) << j.message;
  EXPECT_NE(j.message.find("first at C[1, 2]"), std::string::npos) << j.message;
  EXPECT_NE(j.message.find("matches the library: yes"), std::string::npos) << j.message;
  const OutputCheck& check = j.workloads[0].outputs[0];
  EXPECT_FALSE(check.passed);
  EXPECT_TRUE(check.matches_library);
  ASSERT_TRUE(check.accuracy.has_value());
  EXPECT_FALSE(check.accuracy->passed) << "the worst trial's figures are kept";
  EXPECT_EQ(check.accuracy->candidate_duels_lost, 4);
}

TEST(CorrectnessJudgement, MatchesLibraryRuleIgnoresTheFiguresForTheVerdict) {
  auto r = clean_replies(1);
  r.judge["jobs"][0]["trials"][0]["outputs"][0]["accuracy"] = accuracy_record(0.09, 4, 7);
  WorkerJob job = gemm_job(1);
  job.tolerance.rule = task::CorrectnessRule::kMatchesLibrary;
  auto j = judge({job}, {false}, r.candidate, r.judge);
  EXPECT_EQ(j.verdict, Verdict::kPassed) << j.message;
  const OutputCheck& check = j.workloads[0].outputs[0];
  EXPECT_EQ(check.rule, task::CorrectnessRule::kMatchesLibrary);
  ASSERT_TRUE(check.accuracy.has_value());
  EXPECT_FALSE(check.accuracy->passed);
}

TEST(CorrectnessJudgement, WithoutFiguresTheElementRuleDecidesAndSaysWhy) {
  auto r = clean_replies(1);
  r.judge["jobs"][0]["trials"][0]["outputs"][0]["accuracy_unavailable"] =
      "no high-precision reference for op_type conv";
  auto j = judge({gemm_job(1)}, {false}, r.candidate, r.judge);
  EXPECT_EQ(j.verdict, Verdict::kPassed) << j.message;
  const OutputCheck& check = j.workloads[0].outputs[0];
  EXPECT_EQ(check.rule, task::CorrectnessRule::kMatchesLibrary);
  EXPECT_FALSE(check.accuracy.has_value());
  EXPECT_EQ(check.accuracy_unavailable, "no high-precision reference for op_type conv");
}

TEST(CorrectnessJudgement, AllNanOutputWasNeverWritten) {
  auto r = clean_replies(1);
  auto& out = r.judge["jobs"][0]["trials"][0]["outputs"][0];
  out["mismatches"] = 20;
  out["nan_count"] = 20;
  auto j = judge({gemm_job(1)}, {false}, r.candidate, r.judge);
  EXPECT_EQ(j.verdict, Verdict::kIncorrectShape) << j.message;
  EXPECT_NE(j.message.find("never written"), std::string::npos);
}

TEST(CorrectnessJudgement, ModifiedInputsAreNamed) {
  auto r = clean_replies(1);
  r.candidate["jobs"][0]["trials"][0]["input_hashes_after"] = json::array({"aa", "cc"});
  auto j = judge({gemm_job(1)}, {false}, r.candidate, r.judge);
  EXPECT_EQ(j.verdict, Verdict::kInputsModified);
  EXPECT_NE(j.message.find("B"), std::string::npos) << j.message;
}

TEST(CorrectnessJudgement, WrongOutputsOutrankModifiedInputs) {
  auto r = clean_replies(1);
  r.candidate["jobs"][0]["trials"][0]["input_hashes_after"] = json::array({"zz", "bb"});
  r.judge["jobs"][0]["trials"][0]["outputs"][0]["mismatches"] = 1;
  auto j = judge({gemm_job(1)}, {false}, r.candidate, r.judge);
  EXPECT_EQ(j.verdict, Verdict::kIncorrectNumerical);
}

TEST(CorrectnessJudgement, IrreproducibleInputsAreOurFault) {
  auto r = clean_replies(1);
  r.judge["jobs"][0]["trials"][0]["input_hashes"] = json::array({"aa", "different"});
  r.judge["jobs"][0]["trials"][0]["outputs"][0]["mismatches"] = 5;
  auto j = judge({gemm_job(1)}, {false}, r.candidate, r.judge);
  EXPECT_EQ(j.verdict, Verdict::kInternalError) << j.message;
}

TEST(CorrectnessJudgement, MissingTrialsAreOurFault) {
  auto r = clean_replies(1);
  auto j = judge({gemm_job(2)}, {false}, r.candidate, r.judge);
  EXPECT_EQ(j.verdict, Verdict::kInternalError);
  auto k = judge({gemm_job(1)}, {false}, json("garbage"), r.judge);
  EXPECT_EQ(k.verdict, Verdict::kInternalError);
}

TEST(CorrectnessJudgement, ElementNamesUseTheShape) {
  EXPECT_EQ(element_name("C", {4, 5}, 0), "C[0, 0]");
  EXPECT_EQ(element_name("C", {4, 5}, 19), "C[3, 4]");
  EXPECT_EQ(element_name("LSE", {2, 3, 4}, 13), "LSE[1, 0, 1]");
}

}  // namespace
}  // namespace ptxbench::eval::worker
