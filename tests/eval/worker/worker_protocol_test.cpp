#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ptxbench/eval/worker/exchange.hpp"
#include "ptxbench/eval/worker/info_protocol.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/eval/worker/worker_reply.hpp"

namespace ptxbench::eval::worker {
namespace {

WorkerJob sample_job() {
  WorkerJob job;
  job.task = "gemm_test";
  job.op_type = ptxbench::task::OpType::kGemm;
  job.baseline = ptxbench::task::Baseline::kCublasLtGemmBf16Nt;
  job.parameters = {{"scale", 0.5}};
  job.inputs = {{"A", task::DType::kBFloat16, {8, 4}, {"M", "K"}},
                {"B", task::DType::kBFloat16, {16, 4}, {"N", "K"}}};
  job.outputs = {{"C", task::DType::kBFloat16, {8, 16}, {"M", "N"}}};
  job.workload = "M8";
  job.distribution = task::Distribution::kSpiky;
  job.seed = 18446744073709551557ull;  // above 2^53: must survive JSON
  job.trials = 2;
  job.library = "/tmp/cand.so";
  job.candidate_kernels = {"_Z4gemmPKfS0_Pf"};
  job.limits.call_timeout = std::chrono::milliseconds(1234);
  job.request = timing::TimingRequest{.options = {.min_samples = 3, .max_samples = 9}};
  return job;
}

TEST(WorkerJob, RoundTripsThroughJson) {
  WorkerJob job = sample_job();
  auto back = parse_job(to_json(job).dump());
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->seed, job.seed);
  EXPECT_EQ(back->distribution, task::Distribution::kSpiky);
  ASSERT_EQ(back->inputs.size(), 2u);
  EXPECT_EQ(back->inputs[1].shape, (std::vector<std::int64_t>{16, 4}));
  EXPECT_EQ(back->outputs[0].bytes(), 8u * 16u * 2u);
  EXPECT_EQ(back->candidate_kernels, job.candidate_kernels);
  EXPECT_EQ(back->limits.call_timeout.count(), 1234);
  EXPECT_EQ(back->limits.host_memory_budget_bytes, job.limits.host_memory_budget_bytes);
  const auto* timing = std::get_if<timing::TimingRequest>(&back->request);
  ASSERT_NE(timing, nullptr);
  EXPECT_EQ(timing->options.min_samples, 3);
  EXPECT_EQ(timing->options.max_samples, 9);
  EXPECT_DOUBLE_EQ(back->parameters.at("scale"), 0.5);
}

TEST(WorkerJob, ReferenceCacheFieldRoundTripsAndIsOffWhenAbsent) {
  WorkerJob job = sample_job();
  EXPECT_FALSE(parse_job(to_json(job).dump())->reference_cache.enabled());
  auto text = to_json(job);
  text.erase("reference_cache");  // an older parent's job: the cache is off
  auto absent = parse_job(text.dump());
  ASSERT_TRUE(absent.has_value()) << absent.error().message;
  EXPECT_FALSE(absent->reference_cache.enabled());

  job.reference_cache = {.dir = "/cache/references", .task = "t1", .gpu = "H200|cudnn 9"};
  auto back = parse_job(to_json(job).dump());
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_TRUE(back->reference_cache.enabled());
  EXPECT_EQ(back->reference_cache.dir, "/cache/references");
  EXPECT_EQ(back->reference_cache.task, "t1");
  EXPECT_EQ(back->reference_cache.gpu, "H200|cudnn 9");
}

TEST(WorkerJob, ReferenceCacheFieldWithoutItsKeysIsRefused) {
  WorkerJob job = sample_job();
  job.reference_cache = {.dir = "/cache/references", .task = "", .gpu = "H200"};
  auto no_task = parse_job(to_json(job).dump());
  ASSERT_FALSE(no_task.has_value());
  EXPECT_THAT(no_task.error().message, testing::HasSubstr("reference_cache"));
  job.reference_cache = {.dir = "relative/references", .task = "t", .gpu = "H200"};
  EXPECT_FALSE(parse_job(to_json(job).dump()).has_value());
  auto text = to_json(sample_job());
  text["reference_cache"] = {{"dir", 3}};
  EXPECT_FALSE(parse_job(text.dump()).has_value());
}

TEST(WorkerJob, SeveralJobsAndSingleJobText) {
  auto two = parse_jobs(format_jobs({sample_job(), sample_job()}));
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->size(), 2u);
  auto one = parse_jobs(to_json(sample_job()).dump());
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->size(), 1u);
}

TEST(WorkerJob, MalformedJobsAreErrorsNotExceptions) {
  EXPECT_FALSE(parse_jobs("not json").has_value());
  EXPECT_FALSE(parse_jobs("{\"jobs\": []}").has_value());
  EXPECT_FALSE(parse_job("{\"op_type\": \"gemm\"}").has_value());  // no tensors
  nlohmann::json bad = to_json(sample_job());
  bad["inputs"][0]["dtype"] = "float128";
  EXPECT_FALSE(job_from_json(bad).has_value());
  bad = to_json(sample_job());
  bad["inputs"][0]["shape"] = {-1, 4};
  EXPECT_FALSE(job_from_json(bad).has_value());
}

// The protocol's numbers and names are checked by the one field reader (util/field_reader.hpp):
// an int that would wrap, an unknown operator or baseline, a seed that is no 64-bit number.
TEST(WorkerJob, WrappedNumbersAndUnknownNamesAreRefusedWithTheirField) {
  auto error_of = [](const nlohmann::json& j) {
    auto job = job_from_json(j);
    return job.has_value() ? std::string("(parsed)") : job.error().message;
  };
  nlohmann::json bad = to_json(sample_job());
  bad["trials"] = 4294967297LL;  // get<int> would make it 1
  EXPECT_EQ(error_of(bad),
            "worker job: trials: expected an integer from -2147483648 to 2147483647 (got "
            "4294967297)");
  bad = to_json(sample_job());
  bad["op_type"] = "conv2d";
  EXPECT_EQ(error_of(bad), "worker job: op_type: unknown 'conv2d'");
  bad = to_json(sample_job());
  bad["baseline"] = "cublas";
  EXPECT_EQ(error_of(bad), "worker job: baseline: unknown 'cublas'");
  bad = to_json(sample_job());
  bad["seed"] = "18446744073709551616";  // 2^64
  EXPECT_THAT(error_of(bad), ::testing::HasSubstr("worker job: seed: expected a 64-bit"));
  bad = to_json(sample_job());
  bad["inputs"][0]["dtype"] = "float128";
  EXPECT_EQ(error_of(bad), "worker job: inputs[0].dtype: unknown 'float128'");
  bad = to_json(sample_job());
  bad["device_memory_limit_bytes"] = -1;
  EXPECT_EQ(error_of(bad),
            "worker job: device_memory_limit_bytes: expected a non-negative integer (got -1)");

  nlohmann::json good = to_json(sample_job());
  good["seed"] = "18446744073709551615";
  auto job = job_from_json(good);
  ASSERT_TRUE(job.has_value()) << job.error().message;
  EXPECT_EQ(job->seed, 18446744073709551615ull);
  EXPECT_EQ(job->op_type, ptxbench::task::OpType::kGemm);
  EXPECT_EQ(to_json(*job).at("op_type"), "gemm");
  EXPECT_EQ(to_json(*job).at("baseline"), "cublaslt.gemm_bf16_nt");
}

TEST(WorkerJob, EveryStageRequestRoundTrips) {
  for (StageRequest request :
       {StageRequest(correctness::CandidateRequest{}), StageRequest(correctness::JudgeRequest{}),
        StageRequest(ProbeRequest{.cubin = "/c/k.cubin"}),
        StageRequest(timing::TimingRequest{.options = {.max_seconds = 0.5}})}) {
    WorkerJob job = sample_job();
    job.request = request;
    auto back = parse_job(to_json(job).dump());
    ASSERT_TRUE(back.has_value()) << back.error().message;
    EXPECT_EQ(back->request.index(), request.index());
    EXPECT_EQ(mode_of(back->request), mode_of(request));
  }
  WorkerJob job = sample_job();
  job.request = ProbeRequest{.cubin = "/c/k.cubin"};
  EXPECT_EQ(std::get<ProbeRequest>(parse_job(to_json(job).dump())->request).cubin, "/c/k.cubin");
  job.request = timing::TimingRequest{.options = {.max_seconds = 0.5}};
  EXPECT_DOUBLE_EQ(
      std::get<timing::TimingRequest>(parse_job(to_json(job).dump())->request).options.max_seconds,
      0.5);
}

TEST(WorkerJob, MalformedRequestsAreClearErrors) {
  auto message = [](nlohmann::json j) {
    auto job = job_from_json(j);
    return job.has_value() ? std::string("accepted") : job.error().message;
  };
  nlohmann::json bad = to_json(sample_job());
  bad.erase("request");
  EXPECT_EQ(message(bad), "worker job: request: missing");
  bad = to_json(sample_job());
  bad["request"]["mode"] = "dance";
  EXPECT_NE(message(bad).find("unknown mode 'dance'"), std::string::npos) << message(bad);
  bad = to_json(sample_job());
  bad["request"].erase("settings");
  EXPECT_NE(message(bad).find("settings"), std::string::npos) << message(bad);
  bad = to_json(sample_job());
  bad["request"]["settings"]["max_samples"] = "many";
  EXPECT_NE(message(bad).find("max_samples: expected an integer"), std::string::npos)
      << message(bad);
  bad = to_json(sample_job());
  bad["request"]["settings"].erase("min_samples");
  EXPECT_NE(message(bad).find("min_samples: missing"), std::string::npos) << message(bad);
}

TEST(WorkerJob, TrialSeedsAreDistinctAndReproducible) {
  EXPECT_EQ(trial_seed(42, 0), trial_seed(42, 0));
  EXPECT_NE(trial_seed(42, 0), trial_seed(42, 1));
  EXPECT_NE(trial_seed(42, 0), trial_seed(43, 0));
}

TEST(WorkerReply, LastMarkedLineWins) {
  std::string out = "candidate says hi\n" + format_reply(ReplyStatus::kRuntimeError, "first") +
                    "noise PTXBENCH-WORKER-REPLY {\"status\":\"ok\"}\n" +  // not at line start
                    format_reply(ReplyStatus::kOk, "", {{"value", 7}}) + "trailing text\n";
  auto reply = parse_reply(out);
  ASSERT_TRUE(reply.has_value()) << reply.error().message;
  EXPECT_EQ(reply->status, ReplyStatus::kOk);
  EXPECT_EQ(reply->body.value("value", 0), 7);
}

TEST(WorkerReply, GarbageIsAnError) {
  EXPECT_FALSE(parse_reply("").has_value());
  EXPECT_FALSE(parse_reply("segfault\n").has_value());
  EXPECT_FALSE(parse_reply("PTXBENCH-WORKER-REPLY {not json\n").has_value());
  EXPECT_FALSE(parse_reply("PTXBENCH-WORKER-REPLY [1,2]\n").has_value());
  EXPECT_FALSE(parse_reply("PTXBENCH-WORKER-REPLY {\"status\":\"great\"}\n").has_value());
  EXPECT_FALSE(parse_reply("PTXBENCH-WORKER-REPLY {\"message\":\"x\"}\n").has_value());
}

TEST(WorkerReply, InvalidUtf8InMessagesDoesNotBreakTheLine) {
  std::string message = "bad \xff\xfe bytes";
  auto reply = parse_reply(format_reply(ReplyStatus::kRuntimeError, message));
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->status, ReplyStatus::kRuntimeError);
}

TEST(InfoReply, RoundTripsAndRejectsMalformedReplies) {
  InfoReply info{.name = "NVIDIA H200",
                 .cc_major = 9,
                 .cc_minor = 0,
                 .sm_count = 132,
                 .max_sm_clock_mhz = 1980,
                 .fingerprint = "fp",
                 .toolchain = {{"driver", "580"}}};
  auto back = info_reply_from_json(to_json(info));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->name, "NVIDIA H200");
  EXPECT_EQ(back->sm_count, 132);
  EXPECT_EQ(back->toolchain.at("driver"), "580");
  nlohmann::json bad = to_json(info);
  bad.erase("cc_major");
  auto missing = info_reply_from_json(bad);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "the info reply: cc_major: missing");
  bad = to_json(info);
  bad["sm_count"] = "many";
  EXPECT_FALSE(info_reply_from_json(bad).has_value());
}

TEST(Exchange, FileNamesAreSafeAndDistinct) {
  auto a = exchange_file("/x", 0, 1, "dQ");
  auto b = exchange_file("/x", 1, 0, "dQ");
  auto c = exchange_file("/x", 0, 1, "../etc/passwd");
  EXPECT_NE(a, b);
  EXPECT_EQ(c.parent_path(), std::filesystem::path("/x"));
}

}  // namespace
}  // namespace ptxbench::eval::worker
