#include "ptxbench/eval/timing/timing_protocol.hpp"

#include <gtest/gtest.h>

namespace ptxbench::eval::timing {
namespace {

using nlohmann::json;

TimingReply full_reply() {
  TimingReply r;
  r.candidate = {.stats = {.median_ms = 0.5,
                           .q1_ms = 0.49,
                           .q3_ms = 0.51,
                           .min_ms = 0.48,
                           .max_ms = 0.6,
                           .samples = 40,
                           .dropped_throttled = 2,
                           .relative_noise = 0.01,
                           .sm_clock_mhz = 1980,
                           .kernels_per_call = 3,
                           .converged = true},
                 .event_median_ms = 0.52,
                 .power_capped_samples = 1,
                 .samples_without_gpu_work = 0};
  r.baseline = {.stats = {.median_ms = 0.6, .q1_ms = 0.59, .q3_ms = 0.61, .samples = 40}};
  r.baseline_description = "cublaslt algo 3";
  r.kernels = {"_Z4gemmv", "_Z6reducev"};
  r.foreign_kernels = {"nvjet_tst"};
  r.streams = {.caller_stream_id = 13,
               .other_stream_ids = {21},
               .kernels = 1,
               .memory_operations = 2,
               .background_launches = 0,
               .kernel_names = {"_Z6reducev"}};
  r.blocking_kernel = false;
  r.rounds = 40;
  r.max_sm_clock_mhz = 1980;
  r.clocks_read = true;
  r.l2_flush_bytes = 1u << 28;
  r.launches = {{.name = "_Z4gemmv",
                 .resources = {.launches = 40,
                               .registers_per_thread = 168,
                               .static_shared_bytes = 0,
                               .dynamic_shared_bytes = 200704,
                               .grid = {132, 1, 1},
                               .block = {384, 1, 1},
                               .cluster = {2, 1, 1}}}};
  r.l2_persistence = "cudaLimitPersistingL2CacheSize was raised";
  r.wall_seconds = 1.25;
  r.output_checks = {{.name = "C", .totals = {.elements = 64, .mismatches = 1}, .passed = false}};
  r.outputs_match = false;
  r.host_memory_budget_bytes = 4096;
  return r;
}

TEST(TimingProtocol, ReplyRoundTripsEveryMember) {
  const TimingReply r = full_reply();
  auto back = timing_reply_from_json(to_json(r));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_DOUBLE_EQ(back->candidate.stats.median_ms, 0.5);
  EXPECT_EQ(back->candidate.stats.dropped_throttled, 2);
  EXPECT_TRUE(back->candidate.stats.converged);
  EXPECT_DOUBLE_EQ(back->candidate.event_median_ms, 0.52);
  EXPECT_EQ(back->candidate.power_capped_samples, 1);
  EXPECT_DOUBLE_EQ(back->baseline.stats.median_ms, 0.6);
  EXPECT_EQ(back->baseline_description, "cublaslt algo 3");
  EXPECT_EQ(back->kernels, r.kernels);
  EXPECT_EQ(back->foreign_kernels, r.foreign_kernels);
  EXPECT_EQ(back->streams.other_stream_ids, std::vector<std::uint32_t>{21});
  EXPECT_EQ(back->streams.memory_operations, 2);
  EXPECT_FALSE(back->blocking_kernel);
  EXPECT_EQ(back->rounds, 40);
  EXPECT_TRUE(back->clocks_read);
  EXPECT_EQ(back->l2_flush_bytes, 1u << 28);
  ASSERT_EQ(back->launches.size(), 1u);
  EXPECT_EQ(back->launches[0].resources.dynamic_shared_bytes, 200704);
  EXPECT_EQ(back->launches[0].resources.cluster, (std::array<int, 3>{2, 1, 1}));
  EXPECT_EQ(back->l2_persistence, r.l2_persistence);
  ASSERT_EQ(back->output_checks.size(), 1u);
  EXPECT_EQ(back->output_checks[0].totals.mismatches, 1);
  EXPECT_FALSE(back->output_checks[0].passed);
  EXPECT_FALSE(back->outputs_match);
  EXPECT_EQ(back->host_memory_budget_bytes, 4096u);
}

std::string error_of(const json& body) {
  auto reply = timing_reply_from_json(body);
  return reply.has_value() ? "accepted" : reply.error().message;
}

TEST(TimingProtocol, MalformedRepliesNameTheMember) {
  EXPECT_EQ(error_of(json("x")), "the timing reply: not an object");
  json bad = to_json(full_reply());
  bad.erase("baseline");
  EXPECT_EQ(error_of(bad), "the timing reply: baseline: missing");
  bad = to_json(full_reply());
  bad["candidate"].erase("median_ms");
  EXPECT_EQ(error_of(bad), "the timing reply: candidate.median_ms: missing");
  bad = to_json(full_reply());
  bad["outputs_match"] = "yes";
  EXPECT_EQ(error_of(bad), "the timing reply: outputs_match: expected true or false");
  bad = to_json(full_reply());
  bad["launches"][0]["grid"] = json::array({1, 2});
  EXPECT_NE(error_of(bad).find("launches[0].grid"), std::string::npos) << error_of(bad);
}

TEST(TimingProtocol, RequestRoundTripsAndIsChecked) {
  TimingRequest request{.options = {.min_samples = 5,
                                    .max_samples = 50,
                                    .target_relative_noise = 0.01,
                                    .max_seconds = 0.5,
                                    .throttle_clock_ratio = 0.8}};
  auto back = timing_request_from_json(to_json(request));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->options.min_samples, 5);
  EXPECT_EQ(back->options.max_samples, 50);
  EXPECT_DOUBLE_EQ(back->options.max_seconds, 0.5);
  EXPECT_DOUBLE_EQ(back->options.throttle_clock_ratio, 0.8);
  json bad = to_json(request);
  bad["max_samples"] = 2;
  EXPECT_FALSE(timing_request_from_json(bad).has_value());
}

}  // namespace
}  // namespace ptxbench::eval::timing
