// Stages 5-8 end to end on the GPU: the real ptxbench-worker, the baselines, and the test
// candidates built from data/ (correct ones, and one per way a candidate can break).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "gpu_test_support.hpp"
#include "ptxbench/eval/correctness/accuracy_rule.hpp"
#include "ptxbench/eval/gpu_pipeline/stage_sequence.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval::worker {
namespace {

using gpu_pipeline::StageSequence;
using gpu_pipeline::StageSequenceOptions;

task::Task gemm_task() {
  task::Task t;
  t.name = "gemm_test";
  t.op_type = ptxbench::task::OpType::kGemm;
  t.baseline = ptxbench::task::Baseline::kCublasLtGemmBf16Nt;
  t.axes = {{.name = "M"},
            {.name = "N", .is_const = true, .value = 1024},
            {.name = "K", .is_const = true, .value = 512}};
  t.inputs = {{.name = "A", .shape = {"M", "K"}}, {.name = "B", .shape = {"N", "K"}}};
  t.outputs = {{.name = "C", .shape = {"M", "N"}}};
  t.workloads = {{.name = "M200", .axes = {{"M", 200}}, .seed = 11},
                 {.name = "M1024", .axes = {{"M", 1024}}, .seed = 12, .headline = true},
                 {.name = "M200_spiky",
                  .axes = {{"M", 200}},
                  .distribution = task::Distribution::kSpiky,
                  .seed = 13}};
  return t;
}

task::Task attention_task(bool backward, bool causal) {
  task::Task t;
  t.name = backward ? "mha_bwd_test" : "mha_fwd_test";
  t.op_type = backward ? ptxbench::task::OpType::kMhaBwd : ptxbench::task::OpType::kMhaFwdLse;
  t.baseline =
      backward ? ptxbench::task::Baseline::kCudnnSdpaBwd : ptxbench::task::Baseline::kCudnnSdpaFwd;
  t.axes = {{.name = "B", .is_const = true, .value = 1},
            {.name = "H", .is_const = true, .value = 2},
            {.name = "S"},
            {.name = "D", .is_const = true, .value = 128}};
  t.parameters = {{"causal", causal ? 1 : 0}, {"scale", 0.08838834764831843}};
  task::TensorSpec bhsd{.shape = {"B", "H", "S", "D"}};
  task::TensorSpec lse{.name = "LSE", .shape = {"B", "H", "S"}, .dtype = task::DType::kFloat32};
  auto named = [&](const char* name) {
    auto spec = bhsd;
    spec.name = name;
    return spec;
  };
  if (backward) {
    t.inputs = {named("Q"), named("K"), named("V"), named("O"), named("dO"), lse};
    t.outputs = {named("dQ"), named("dK"), named("dV")};
  } else {
    t.inputs = {named("Q"), named("K"), named("V")};
    t.outputs = {named("O"), lse};
  }
  t.workloads = {{.name = "S128", .axes = {{"S", 128}}, .seed = 21},
                 {.name = "S256", .axes = {{"S", 256}}, .seed = 22, .headline = true}};
  return t;
}

CompiledCandidate candidate(const std::string& name) {
  return CompiledCandidate{.shared_object = std::filesystem::path(PTXBENCH_TEST_CANDIDATE_DIR) /
                                            ("test_candidate_" + name + ".so")};
}

class GpuStagesTest : public ::testing::Test {
 protected:
  static StageSequenceOptions options(bool sanitize) {
    StageSequenceOptions o{.worker = PTXBENCH_WORKER_PATH,
                           .call_timeout = std::chrono::seconds(5),
                           .sanitize = sanitize,
                           .prove_execution = false};
    o.timing.max_seconds = 0.5;
    // Small enough that the resident-set guard stops gemm_host_oom's page-by-page touching well
    // within the 5 s call deadline (at the default 16 GiB the deadline came first on the H200).
    o.host_memory_budget_bytes = 2ull << 30;
    return o;
  }

  void SetUp() override {
    PTXBENCH_REQUIRE_GPU();
    std::string why;
    if (!stages_.available(arch::Arch::kHopper, why)) GTEST_SKIP() << why;
  }

  Evaluation evaluate(const task::Task& task, const std::string& name) {
    Evaluation e;
    e.arch = arch::Arch::kHopper;
    stages_.run(task, candidate(name), e);
    return e;
  }

  StageSequence stages_{options(false), std::make_shared<util::SystemProcessRunner>()};
};

const TimingStats& headline_timing(const Evaluation& e) {
  for (const auto& w : e.workloads) {
    if (w.headline && w.candidate) return *w.candidate;
  }
  static const TimingStats kNone;
  ADD_FAILURE() << "no headline timing";
  return kNone;
}

TEST_F(GpuStagesTest, NaiveGemmIsCorrectAndTimed) {
  Evaluation e = evaluate(gemm_task(), "gemm_naive");
  ASSERT_EQ(e.verdict, Verdict::kPassed) << e.message;
  ASSERT_EQ(e.workloads.size(), 3u);
  const auto& timed = headline_timing(e);
  EXPECT_GE(timed.samples, 10);
  EXPECT_EQ(timed.kernels_per_call, 1);
  ASSERT_TRUE(e.workloads[1].speedup.has_value());
  EXPECT_GT(*e.workloads[1].speedup, 0.0);
  EXPECT_GT(e.workloads[1].baseline->median_ms, 0.0);
  EXPECT_TRUE(e.toolchain.count("gpu"));
  for (const auto& w : e.workloads) {
    ASSERT_EQ(w.outputs.size(), 1u);
    ASSERT_TRUE(w.outputs[0].accuracy.has_value()) << w.outputs[0].accuracy_unavailable;
    EXPECT_TRUE(w.outputs[0].accuracy->passed);
  }
}

// Resources as the kernel ran (CUPTI's activity record) and the speed of light of each timed
// workload, beside ptxas' static figures.
TEST_F(GpuStagesTest, TimingRecordsLaunchResourcesAndTheSpeedOfLight) {
  Evaluation e;
  e.arch = arch::Arch::kHopper;
  e.kernels.push_back(KernelReport{.name = "gemm_tiled"});
  stages_.run(gemm_task(), candidate("gemm_naive"), e);
  ASSERT_EQ(e.verdict, Verdict::kPassed) << e.message;
  ASSERT_TRUE(e.kernels[0].launched.has_value()) << "no launch record for gemm_tiled";
  const LaunchResources& l = *e.kernels[0].launched;
  std::printf(
      "gemm_tiled launched: %d regs, %d B static + %d B dynamic smem, grid %dx%dx%d, block "
      "%dx%dx%d, %lld launches\n",
      l.registers_per_thread, l.static_shared_bytes, l.dynamic_shared_bytes, l.grid[0], l.grid[1],
      l.grid[2], l.block[0], l.block[1], l.block[2], static_cast<long long>(l.launches));
  EXPECT_GT(l.launches, 0);
  EXPECT_GT(l.registers_per_thread, 0);
  EXPECT_GT(l.block[0] * l.block[1] * l.block[2], 0);
  EXPECT_GT(l.grid[0] * l.grid[1] * l.grid[2], 0);
  const auto& headline = e.workloads[1];
  ASSERT_TRUE(headline.speed_of_light.has_value());
  std::printf("speed of light: bound %.4f ms (compute %.4f, memory %.4f), reached %.3f\n",
              headline.speed_of_light->bound_ms, headline.speed_of_light->compute_bound_ms,
              headline.speed_of_light->memory_bound_ms, headline.speed_of_light->fraction);
  EXPECT_GT(headline.speed_of_light->fraction, 0.0);
  EXPECT_LT(headline.speed_of_light->fraction, 1.05);
}

// The backward task's inputs O and LSE come from cuDNN's forward inside the candidate's process.
// Under the sanitizer an honest backward is judged on its own merits (it was FORBIDDEN for a race
// racecheck reported inside cuDNN's kernel), and one that runs a cuDNN kernel itself is not.
TEST_F(GpuStagesTest, BackwardUnderTheSanitizerIsChargedOnlyForItsOwnKernels) {
  StageSequence with_sanitizer(options(true), std::make_shared<util::SystemProcessRunner>());
  Evaluation honest;
  honest.arch = arch::Arch::kHopper;
  auto start = std::chrono::steady_clock::now();
  with_sanitizer.run(attention_task(true, false), candidate("attention_bwd"), honest);
  std::printf("attention_bwd -> %s (%.1f s): %s\n  sanitize: %s\n",
              std::string(to_string(honest.verdict)).c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
              honest.message.c_str(), honest.stage(Stage::kSanitize).message.c_str());
  EXPECT_EQ(honest.verdict, Verdict::kPassed) << honest.message;
  EXPECT_NE(honest.stage(Stage::kSanitize).status, StageStatus::kFailed);
  Evaluation library;
  library.arch = arch::Arch::kHopper;
  with_sanitizer.run(attention_task(true, false), candidate("attention_bwd_cudnn"), library);
  std::printf("attention_bwd_cudnn -> %s: %s\n", std::string(to_string(library.verdict)).c_str(),
              library.message.c_str());
  EXPECT_EQ(library.verdict, Verdict::kForbidden) << library.message;
}

// A slow but correct candidate under both sanitizer tools: the whole verdict stays bounded, and
// a racecheck that did not finish says "not checked", never "passed".
TEST_F(GpuStagesTest, ASlowCandidatesSanitizeStageIsBoundedAndHonest) {
  StageSequence with_sanitizer(options(true), std::make_shared<util::SystemProcessRunner>());
  Evaluation e;
  e.arch = arch::Arch::kHopper;
  auto start = std::chrono::steady_clock::now();
  with_sanitizer.run(gemm_task(), candidate("gemm_naive"), e);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto& sanitize = e.stage(Stage::kSanitize);
  std::printf("gemm_naive with sanitizer: %s in %.1f s; sanitize %s (%.1f s): %s\n",
              std::string(to_string(e.verdict)).c_str(), seconds,
              std::string(to_string(sanitize.status)).c_str(), sanitize.seconds,
              sanitize.message.c_str());
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  EXPECT_LT(seconds, 30.0);
  if (sanitize.message.find("timed out") != std::string::npos) {
    EXPECT_EQ(sanitize.status, StageStatus::kNotChecked);
  }
}

// Both candidates are correct in the caller's stream order, so correctness passes every time and
// only the timing trace's stream rule stands between them and a clean pass.
struct OffStream {
  const char* name;
  const char* message_part;
};

class WorkOffTheCallersStream : public GpuStagesTest,
                                public ::testing::WithParamInterface<OffStream> {};

TEST_P(WorkOffTheCallersStream, IsForbiddenAtTiming) {
  const OffStream& want = GetParam();
  Evaluation e = evaluate(gemm_task(), want.name);
  std::printf("%s -> %s: %s\n", want.name, std::string(to_string(e.verdict)).c_str(),
              e.message.c_str());
  EXPECT_EQ(e.verdict, Verdict::kForbidden) << e.message;
  const StageRecord* correctness = e.find_stage(Stage::kCorrectness);
  ASSERT_NE(correctness, nullptr);
  EXPECT_EQ(correctness->status, StageStatus::kPassed);
  const StageRecord* timing = e.find_stage(Stage::kTiming);
  ASSERT_NE(timing, nullptr);
  EXPECT_EQ(timing->status, StageStatus::kFailed);
  EXPECT_NE(e.message.find("a stream other than the caller's"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find(want.message_part), std::string::npos) << e.message;
  // The same kernel on the caller's stream passes the rule.
  Evaluation plain = evaluate(gemm_task(), "gemm_naive");
  EXPECT_EQ(plain.verdict, Verdict::kPassed) << plain.message;
}

INSTANTIATE_TEST_SUITE_P(Streams, WorkOffTheCallersStream,
                         ::testing::Values(OffStream{"gemm_private_stream", "gemm_tiled"},
                                           OffStream{"gemm_background_stream", "memory operation"}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

struct Broken {
  const char* name;
  Verdict verdict;
  const char* message_part;
};

class BrokenGemm : public GpuStagesTest, public ::testing::WithParamInterface<Broken> {};

TEST_P(BrokenGemm, GetsItsVerdictAndTheNextCandidateStillPasses) {
  const Broken& want = GetParam();
  auto start = std::chrono::steady_clock::now();
  Evaluation bad = evaluate(gemm_task(), want.name);
  // Printed for the record (docs/gpu-results): the verdict and reason a user would see.
  std::printf("%s -> %s: %s (%.1f s)\n", want.name, std::string(to_string(bad.verdict)).c_str(),
              bad.message.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  EXPECT_EQ(bad.verdict, want.verdict) << bad.message;
  EXPECT_NE(bad.message.find(want.message_part), std::string::npos) << bad.message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  Evaluation good = evaluate(gemm_task(), "gemm_naive");
  EXPECT_EQ(good.verdict, Verdict::kPassed) << good.message;
}

INSTANTIATE_TEST_SUITE_P(
    Defects, BrokenGemm,
    ::testing::Values(Broken{"gemm_fault", Verdict::kRuntimeError, "illegal"},
                      Broken{"gemm_hang", Verdict::kTimeout, "did not finish"},
                      Broken{"gemm_oom", Verdict::kRuntimeError, "memory"},
                      Broken{"gemm_abort", Verdict::kRuntimeError, "signal"},
                      Broken{"gemm_host_oom", Verdict::kRuntimeError, "host memory"},
                      Broken{"gemm_unwritten", Verdict::kIncorrectShape, "never written"},
                      Broken{"gemm_half_written", Verdict::kIncorrectNumerical, "output C"},
                      Broken{"gemm_modifies_a", Verdict::kInputsModified, "A"},
                      // Right for the checked calls, wrong later: the check after timing.
                      Broken{"gemm_wrong_after_calls", Verdict::kIncorrectNumerical, "timed calls"},
                      Broken{"gemm_l2_persisting", Verdict::kForbidden, "persisting in L2"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// The device-memory cap (off by default): a candidate that needs 4 GiB passes on the whole GPU
// and fails under a 1 GiB cap, and the GPU is usable again afterwards.
TEST_F(GpuStagesTest, DeviceMemoryCapStopsAnAllocationTheGpuCouldHold) {
  Evaluation uncapped = evaluate(gemm_task(), "gemm_device_hoard");
  EXPECT_EQ(uncapped.verdict, Verdict::kPassed) << uncapped.message;
  StageSequenceOptions capped_options = options(false);
  capped_options.device_memory_limit_bytes = 1ull << 30;
  StageSequence capped(capped_options, std::make_shared<util::SystemProcessRunner>());
  Evaluation e;
  e.arch = arch::Arch::kHopper;
  capped.run(gemm_task(), candidate("gemm_device_hoard"), e);
  std::printf("gemm_device_hoard under a 1 GiB cap -> %s: %s\n",
              std::string(to_string(e.verdict)).c_str(), e.message.c_str());
  EXPECT_EQ(e.verdict, Verdict::kRuntimeError) << e.message;
  EXPECT_NE(e.message.find("memory"), std::string::npos) << e.message;
  Evaluation good;
  good.arch = arch::Arch::kHopper;
  capped.run(gemm_task(), candidate("gemm_naive"), good);
  EXPECT_EQ(good.verdict, Verdict::kPassed) << good.message;
}

// The judge's reference cache: the same seed judged twice, the second time from the cache, gives
// the same totals and accuracy figures as judging afresh; a wrong candidate is still wrong.
TEST_F(GpuStagesTest, TheReferenceCacheGivesTheFiguresOfAFreshJudge) {
  util::TempDir cache("ptxbench-reference-cache-");
  StageSequenceOptions cached_options = options(false);
  cached_options.reference_cache_dir = cache.path();
  cached_options.settings.reference_cache = true;
  StageSequence cached(cached_options, std::make_shared<util::SystemProcessRunner>());
  std::string why;
  ASSERT_TRUE(cached.available(arch::Arch::kHopper, why)) << why;
  for (const auto& [task, name] : {std::pair{gemm_task(), "gemm_naive"},
                                   std::pair{attention_task(false, false), "attention_fwd"}}) {
    std::vector<Evaluation> runs;
    for (int i = 0; i < 2; ++i) {
      Evaluation e;
      e.arch = arch::Arch::kHopper;
      e.input_seed = 777;
      cached.run(task, candidate(name), e);
      ASSERT_EQ(e.verdict, Verdict::kPassed) << e.message;
      runs.push_back(std::move(e));
    }
    const auto& first = runs[0].stage(Stage::kCorrectness).reference_cache;
    const auto& second = runs[1].stage(Stage::kCorrectness).reference_cache;
    ASSERT_TRUE(first && second) << name;
    std::printf(
        "%s: reference cache %llu/%llu then %llu/%llu (hits/misses), correctness %.2f s then %.2f "
        "s\n",
        name, static_cast<unsigned long long>(first->hits),
        static_cast<unsigned long long>(first->misses),
        static_cast<unsigned long long>(second->hits),
        static_cast<unsigned long long>(second->misses), runs[0].stage(Stage::kCorrectness).seconds,
        runs[1].stage(Stage::kCorrectness).seconds);
    EXPECT_EQ(first->hits, 0u);
    EXPECT_GT(first->misses, 0u);
    EXPECT_EQ(second->hits, first->misses);
    EXPECT_EQ(second->misses, 0u);
    Evaluation fresh;
    fresh.arch = arch::Arch::kHopper;
    fresh.input_seed = 777;
    stages_.run(task, candidate(name), fresh);
    ASSERT_EQ(fresh.workloads.size(), runs[1].workloads.size());
    for (std::size_t w = 0; w < fresh.workloads.size(); ++w) {
      for (std::size_t o = 0; o < fresh.workloads[w].outputs.size(); ++o) {
        const auto& a = fresh.workloads[w].outputs[o];
        const auto& b = runs[1].workloads[w].outputs.at(o);
        EXPECT_EQ(a.max_abs_error, b.max_abs_error) << name << " " << a.name;
        EXPECT_EQ(a.matched_ratio, b.matched_ratio) << name << " " << a.name;
        ASSERT_EQ(a.accuracy.has_value(), b.accuracy.has_value());
        if (a.accuracy) {
          EXPECT_EQ(a.accuracy->candidate_duels_lost, b.accuracy->candidate_duels_lost);
        }
      }
    }
  }
  Evaluation wrong;
  wrong.arch = arch::Arch::kHopper;
  wrong.input_seed = 777;
  cached.run(gemm_task(), candidate("gemm_half_written"), wrong);
  EXPECT_EQ(wrong.verdict, Verdict::kIncorrectNumerical) << wrong.message;
  ASSERT_TRUE(wrong.stage(Stage::kCorrectness).reference_cache.has_value());
  EXPECT_GT(wrong.stage(Stage::kCorrectness).reference_cache->hits, 0u);
}

TEST_F(GpuStagesTest, SanitizerCatchesTheOutOfBoundsWrite) {
  StageSequence with_sanitizer(options(true), std::make_shared<util::SystemProcessRunner>());
  Evaluation e;
  e.arch = arch::Arch::kHopper;
  // Its own kernels, as the pipeline's static SASS names them: an error in a kernel the candidate
  // did not build is library use (FORBIDDEN), so without them the write is not the candidate's.
  CompiledCandidate fault = candidate("gemm_fault");
  fault.sass.kernels.push_back({.name = "_ZN12_GLOBAL__N_114write_far_awayEP13__nv_bfloat16"});
  with_sanitizer.run(gemm_task(), fault, e);
  EXPECT_EQ(e.verdict, Verdict::kSanitizerError) << e.message;
  Evaluation clean;
  clean.arch = arch::Arch::kHopper;
  with_sanitizer.run(gemm_task(), candidate("gemm_naive"), clean);
  EXPECT_EQ(clean.verdict, Verdict::kPassed) << clean.message;
  EXPECT_EQ(clean.find_stage(Stage::kSanitize)->status, StageStatus::kPassed);
}

struct AttentionCase {
  const char* name;
  bool backward;
  bool causal;
};

class NaiveAttention : public GpuStagesTest, public ::testing::WithParamInterface<AttentionCase> {};

TEST_P(NaiveAttention, MatchesCudnn) {
  const AttentionCase& c = GetParam();
  Evaluation e = evaluate(attention_task(c.backward, c.causal), c.name);
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  for (const auto& w : e.workloads) {
    for (const auto& o : w.outputs) {
      std::printf("%s %s %s: max abs error %.3g, max rel error %.3g, matched %.6f\n", c.name,
                  w.workload.c_str(), o.name.c_str(), o.max_abs_error, o.max_rel_error,
                  o.matched_ratio);
      // The judge measured both rules; the default, "as accurate as the library", decided.
      EXPECT_EQ(o.rule, task::CorrectnessRule::kAsAccurateAsLibrary) << o.accuracy_unavailable;
      EXPECT_TRUE(o.matches_library);
      ASSERT_TRUE(o.accuracy.has_value()) << o.accuracy_unavailable;
      EXPECT_TRUE(o.accuracy->passed) << correctness::accuracy_failure(*o.accuracy);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, NaiveAttention,
                         ::testing::Values(AttentionCase{"attention_fwd", false, false},
                                           AttentionCase{"attention_fwd_causal", false, true},
                                           AttentionCase{"attention_bwd", true, false},
                                           AttentionCase{"attention_bwd_causal", true, true}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace ptxbench::eval::worker
