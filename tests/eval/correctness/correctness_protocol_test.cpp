#include "ptxbench/eval/correctness/correctness_protocol.hpp"

#include <gtest/gtest.h>

namespace ptxbench::eval::correctness {
namespace {

using nlohmann::json;

CandidateReply candidate_reply() {
  return CandidateReply{.jobs = {{.workload = "M4",
                                  .trials = {{.trial = 0,
                                              .seed = 18446744073709551557ull,  // above 2^53
                                              .input_hashes_before = {"aa", "bb"},
                                              .input_hashes_after = {"aa", "bc"},
                                              .call_ms = 1.5}}}},
                        .failed_job = 0,
                        .host_memory_budget_bytes = 1024};
}

JudgeReply judge_reply() {
  AccuracyTotals accuracy;
  accuracy.elements = accuracy.compared = 20;
  accuracy.candidate_duels_lost = 3;
  worker::ComparisonTotals totals{.elements = 20, .mismatches = 2, .first_bad_index = 5};
  return JudgeReply{
      .jobs = {{.workload = "M4",
                .baseline = "cublaslt",
                .trials = {{.trial = 1,
                            .seed = 7,
                            .input_hashes = {"aa", "bb"},
                            .outputs = {{.name = "C", .totals = totals, .accuracy = accuracy},
                                        {.name = "LSE",
                                         .totals = totals,
                                         .accuracy_unavailable = "no reference"}}}}}}};
}

TEST(CorrectnessProtocol, CandidateReplyRoundTrips) {
  auto back = candidate_reply_from_json(to_json(candidate_reply()));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  ASSERT_EQ(back->jobs.size(), 1u);
  const CandidateTrial& t = back->jobs[0].trials.at(0);
  EXPECT_EQ(t.seed, 18446744073709551557ull);
  EXPECT_EQ(t.input_hashes_after, (std::vector<std::string>{"aa", "bc"}));
  EXPECT_DOUBLE_EQ(t.call_ms, 1.5);
  EXPECT_EQ(back->failed_job, std::optional<std::size_t>(0));
  EXPECT_EQ(back->host_memory_budget_bytes, 1024u);
  CandidateReply clean = candidate_reply();
  clean.failed_job.reset();
  EXPECT_FALSE(candidate_reply_from_json(to_json(clean))->failed_job.has_value());
}

TEST(CorrectnessProtocol, JudgeReplyRoundTrips) {
  auto back = judge_reply_from_json(to_json(judge_reply()));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  const JudgeTrial& t = back->jobs.at(0).trials.at(0);
  EXPECT_EQ(back->jobs[0].baseline, "cublaslt");
  EXPECT_EQ(t.trial, 1);
  EXPECT_EQ(t.seed, 7u);
  ASSERT_EQ(t.outputs.size(), 2u);
  EXPECT_EQ(t.outputs[0].totals.mismatches, 2);
  EXPECT_EQ(t.outputs[0].totals.first_bad_index, 5);
  ASSERT_TRUE(t.outputs[0].accuracy.has_value());
  EXPECT_EQ(t.outputs[0].accuracy->candidate_duels_lost, 3);
  EXPECT_FALSE(t.outputs[1].accuracy.has_value());
  EXPECT_EQ(t.outputs[1].accuracy_unavailable, "no reference");
  EXPECT_EQ(back->reference_cache.hits, 0u);
}

TEST(CorrectnessProtocol, JudgeReplyCarriesTheReferenceCacheCounts) {
  JudgeReply reply = judge_reply();
  reply.reference_cache = {.hits = 5, .misses = 2};
  auto back = judge_reply_from_json(to_json(reply));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->reference_cache.hits, 5u);
  EXPECT_EQ(back->reference_cache.misses, 2u);
  auto body = to_json(reply);
  body.erase("reference_cache");  // an older judge: nothing counted
  EXPECT_EQ(judge_reply_from_json(body)->reference_cache.misses, 0u);
  body["reference_cache"] = {{"hits", "many"}};
  EXPECT_FALSE(judge_reply_from_json(body).has_value());
}

std::string error_of(const util::Expected<CandidateReply>& reply) {
  return reply.has_value() ? "accepted" : reply.error().message;
}

TEST(CorrectnessProtocol, MalformedCandidateRepliesNameTheMember) {
  EXPECT_EQ(error_of(candidate_reply_from_json(json("x"))),
            "the candidate worker's reply: not an object");
  EXPECT_EQ(error_of(candidate_reply_from_json(json::object())),
            "the candidate worker's reply: jobs: missing");
  json bad = to_json(candidate_reply());
  bad["jobs"][0]["trials"][0].erase("input_hashes_before");
  EXPECT_EQ(error_of(candidate_reply_from_json(bad)),
            "the candidate worker's reply: jobs[0].trials[0].input_hashes_before: missing");
  bad = to_json(candidate_reply());
  bad["jobs"][0]["trials"][0]["seed"] = "12x";
  EXPECT_NE(error_of(candidate_reply_from_json(bad)).find("seed: not an unsigned integer"),
            std::string::npos);
  bad = to_json(candidate_reply());
  bad["jobs"] = json::object();
  EXPECT_EQ(error_of(candidate_reply_from_json(bad)),
            "the candidate worker's reply: jobs: not an array");
}

TEST(CorrectnessProtocol, MalformedJudgeRepliesAreErrors) {
  json bad = to_json(judge_reply());
  bad["jobs"][0]["trials"][0]["outputs"][0].erase("name");
  auto missing = judge_reply_from_json(bad);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message,
            "the judge worker's reply: jobs[0].trials[0].outputs[0].name: missing");
  bad = to_json(judge_reply());
  bad["jobs"][0]["trials"][0]["outputs"][0]["accuracy"] = "high";
  EXPECT_FALSE(judge_reply_from_json(bad).has_value());
  bad = to_json(judge_reply());
  bad["jobs"][0]["trials"][0]["input_hashes"] = json::array({1, 2});
  EXPECT_FALSE(judge_reply_from_json(bad).has_value());
}

}  // namespace
}  // namespace ptxbench::eval::correctness
