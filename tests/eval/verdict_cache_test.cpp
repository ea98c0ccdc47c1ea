// The verdict cache: a hit needs every part of the key, gives the original's GPU stages with
// the fresh record's own first stages and says it is cached; what must not be kept is not; the
// GPU slots' front consults it only when the seed is known before judging.
#include "ptxbench/eval/verdict_cache.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/eval/seeded_gpu_stages.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval {
namespace {

VerdictKey key_of(std::string code = "__global__ void k() {}") {
  return {.code = std::move(code),
          .task = "task",
          .input_seed = 5,
          .settings = "settings",
          .toolchain = "nvcc=13.0",
          .gpu = "NVIDIA H200|sm_90",
          .judge = "0.1|abc|def"};
}

// A record whose GPU stages passed, as the GPU stages leave it.
Evaluation judged(Verdict verdict = Verdict::kPassed) {
  Evaluation e;
  e.task = "gemm";
  e.source_name = "first.cu";
  e.verdict = verdict;
  e.stage(Stage::kCompile) = {
      .stage = Stage::kCompile, .status = StageStatus::kPassed, .seconds = 4};
  e.stage(Stage::kCorrectness) = {
      .stage = Stage::kCorrectness, .status = StageStatus::kPassed, .seconds = 3.5};
  e.stage(Stage::kTiming) = {
      .stage = Stage::kTiming, .status = StageStatus::kPassed, .seconds = 0.5};
  e.workloads.push_back({.workload = "M8192", .headline = true, .status = verdict, .speedup = 1.1});
  e.input_seed = 5;
  return e;
}

// A fresh record of stages 1-4: another name, a cached compile.
Evaluation fresh() {
  Evaluation e;
  e.task = "gemm";
  e.source_name = "again.cu";
  e.compile.cached = true;
  e.stage(Stage::kCompile) = {
      .stage = Stage::kCompile, .status = StageStatus::kPassed, .seconds = 0.01};
  e.toolchain["nvcc"] = "13.0";
  e.input_seed = 5;
  return e;
}

TEST(VerdictCache, AHitTakesTheGpuStagesAndSaysItIsCached) {
  util::TempDir dir("verdict-cache-");
  VerdictCache cache(dir.path());
  cache.store(key_of(), judged());
  auto e = fresh();
  ASSERT_TRUE(cache.apply(key_of(), e));
  EXPECT_EQ(e.verdict, Verdict::kPassed);
  ASSERT_TRUE(e.cached.has_value());
  EXPECT_FALSE(e.cached->from.empty());
  EXPECT_EQ(e.source_name, "again.cu");
  EXPECT_TRUE(e.compile.cached);
  EXPECT_DOUBLE_EQ(e.find_stage(Stage::kCompile)->seconds, 0.01);
  EXPECT_DOUBLE_EQ(e.find_stage(Stage::kCorrectness)->seconds, 3.5);
  ASSERT_EQ(e.workloads.size(), 1u);
  EXPECT_EQ(e.workloads[0].speedup, 1.1);
  // The mark survives the record's JSON.
  auto back = evaluation_from_json(to_json(e));
  ASSERT_TRUE(back.has_value());
  ASSERT_TRUE(back->cached.has_value());
  EXPECT_EQ(back->cached->key, e.cached->key);
  EXPECT_EQ(to_json(*back)["cached"]["verdict"], true);
  const auto stats = cache.stats();
  EXPECT_EQ(stats.stores, 1u);
  EXPECT_EQ(stats.hits, 1u);
}

TEST(VerdictCache, EveryPartOfTheKeyDecides) {
  util::TempDir dir("verdict-cache-");
  VerdictCache cache(dir.path());
  cache.store(key_of(), judged());
  std::vector<VerdictKey> others(9, key_of());
  others[0].code += " ";
  others[1].task = "other task";
  others[2].arch = arch::Arch::kBlackwell;
  others[3].input_seed = 6;
  others[4].settings = "other settings";
  others[5].toolchain = "nvcc=13.1";
  others[6].gpu = "NVIDIA B200|sm_100";
  others[7].judge = "0.1|abd|def";
  others[8].gpu = "NVIDIA H200|sm_90|driver 2";
  for (const auto& key : others) {
    auto e = fresh();
    EXPECT_FALSE(cache.apply(key, e)) << key.text();
    EXPECT_FALSE(e.cached.has_value());
  }
  EXPECT_EQ(cache.stats().misses, others.size());
}

TEST(VerdictCache, AnEntryWhoseKeyTextDiffersIsAMiss) {
  util::TempDir dir("verdict-cache-");
  VerdictCache cache(dir.path());
  cache.store(key_of(), judged());
  // Another key's text under this key's file name: as a hash collision would leave it.
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    files.push_back(entry.path());
  ASSERT_EQ(files.size(), 1u);
  auto text = util::read_file(files[0]);
  ASSERT_TRUE(text.has_value());
  auto json = nlohmann::json::parse(*text);
  json["key"] = key_of("other").text();
  util::write_file_atomic(files[0], json.dump());
  auto e = fresh();
  EXPECT_FALSE(cache.apply(key_of(), e));
  util::write_file_atomic(files[0], "{not json");
  EXPECT_FALSE(cache.apply(key_of(), e));
}

TEST(VerdictCache, WhatMustNotBeKeptIsNot) {
  util::TempDir dir("verdict-cache-");
  VerdictCache cache(dir.path());
  for (auto verdict : {Verdict::kInternalError, Verdict::kNotRun, Verdict::kTimeout}) {
    cache.store(key_of(), judged(verdict));
    auto e = fresh();
    EXPECT_FALSE(cache.apply(key_of(), e)) << to_string(verdict);
  }
  auto not_checked = judged();
  not_checked.stage(Stage::kSanitize) = {.stage = Stage::kSanitize,
                                         .status = StageStatus::kNotChecked};
  cache.store(key_of(), not_checked);
  auto e = fresh();
  EXPECT_FALSE(cache.apply(key_of(), e));
  EXPECT_EQ(cache.stats().stores, 0u);
  // A failing verdict the candidate's outputs decided is kept.
  cache.store(key_of(), judged(Verdict::kIncorrectNumerical));
  EXPECT_TRUE(cache.apply(key_of(), e));
  EXPECT_EQ(e.verdict, Verdict::kIncorrectNumerical);
}

TEST(VerdictCache, TheLeastRecentlyUsedGoBeyondTheBudget) {
  util::TempDir dir("verdict-cache-");
  const auto one = to_json(judged()).dump().size();
  VerdictCache cache(dir.path(), 3 * one);  // room for two entries with their keys
  cache.store(key_of("a"), judged());
  cache.store(key_of("b"), judged());
  cache.store(key_of("c"), judged());
  EXPECT_GE(cache.stats().evictions, 1u);
  auto e = fresh();
  EXPECT_TRUE(cache.apply(key_of("c"), e));
}

TEST(VerdictSettingsText, HoldsWhatDecidesAVerdictOnly) {
  const EvaluationSettings base;
  const auto text = verdict_settings_text(base);
  auto changed = base;
  changed.judge.unseen = correctness::UnseenPolicy::kReport;
  EXPECT_NE(verdict_settings_text(changed), text);
  changed = base;
  changed.correctness_rule = task::CorrectnessRule::kMatchesLibrary;
  EXPECT_NE(verdict_settings_text(changed), text);
  changed = base;
  changed.judge.racecheck_timeout = std::chrono::seconds(16);
  EXPECT_NE(verdict_settings_text(changed), text);
  changed = base;
  changed.parallel = 7;
  changed.gpus = "0,1";
  changed.input_seed = 3;
  changed.seed_pool = 8;
  EXPECT_EQ(verdict_settings_text(changed), text);
}

// A GPU slot that judges from the seed it was handed and counts its runs.
class CountingGpu final : public GpuStages {
 public:
  explicit CountingGpu(std::string identity) : identity_(std::move(identity)) {}
  bool available(arch::Arch, std::string&) override { return true; }
  void run(const task::Task&, const CompiledCandidate&, Evaluation& e) override {
    ++runs;
    seeds.push_back(e.input_seed.value_or(0));
    e.verdict = Verdict::kPassed;
    e.stage(Stage::kCorrectness) = {.stage = Stage::kCorrectness, .status = StageStatus::kPassed};
  }
  std::string identity() override { return identity_; }
  int runs = 0;
  std::vector<std::uint64_t> seeds;

 private:
  std::string identity_;
};

class SeededGpuStagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.path() / "c");
    util::write_file_atomic(dir_.path() / "c" / std::string(compile::kSourceFileName), "code");
    candidate_.shared_object = dir_.path() / "c" / "candidate.so";
    task_.name = "t";
  }
  Evaluation judge(SeededGpuStages& stages) {
    Evaluation e;
    e.toolchain["nvcc"] = "13.0";
    stages.run(task_, candidate_, e);
    return e;
  }
  util::TempDir dir_{"seeded-stages-"};
  CompiledCandidate candidate_;
  task::Task task_;
};

TEST_F(SeededGpuStagesTest, AFixedSeedReachesTheGpuAndASecondVerdictIsCached) {
  auto gpu = std::make_shared<CountingGpu>("H200");
  auto cache = std::make_shared<VerdictCache>(dir_.path() / "verdicts");
  SeededGpuStages stages(
      gpu, std::make_shared<correctness::SeedSource>(9, 0, std::array<std::uint64_t, 2>{}), cache,
      "s", "j");
  const auto first = judge(stages);
  EXPECT_EQ(gpu->seeds, std::vector<std::uint64_t>{9});
  EXPECT_FALSE(first.cached.has_value());
  const auto second = judge(stages);
  EXPECT_EQ(gpu->runs, 1);
  ASSERT_TRUE(second.cached.has_value());
  EXPECT_EQ(second.verdict, Verdict::kPassed);
  EXPECT_EQ(second.input_seed, 9u);
  // Another GPU (name, driver, libraries) judges again.
  auto other = std::make_shared<CountingGpu>("B200");
  SeededGpuStages elsewhere(
      other, std::make_shared<correctness::SeedSource>(9, 0, std::array<std::uint64_t, 2>{}), cache,
      "s", "j");
  EXPECT_FALSE(judge(elsewhere).cached.has_value());
  EXPECT_EQ(other->runs, 1);
}

TEST_F(SeededGpuStagesTest, FreshSeedsBypassTheCache) {
  auto gpu = std::make_shared<CountingGpu>("H200");
  auto cache = std::make_shared<VerdictCache>(dir_.path() / "verdicts");
  SeededGpuStages stages(
      gpu,
      std::make_shared<correctness::SeedSource>(std::nullopt, 0, std::array<std::uint64_t, 2>{}),
      cache, "s", "j");
  judge(stages);
  judge(stages);
  EXPECT_EQ(gpu->runs, 2);
  EXPECT_NE(gpu->seeds[0], gpu->seeds[1]);
  EXPECT_EQ(cache->stats().bypassed, 2u);
  EXPECT_EQ(cache->stats().stores, 0u);
}

TEST_F(SeededGpuStagesTest, AGpuThatNamesNothingIsNotCached) {
  auto gpu = std::make_shared<CountingGpu>("");
  auto cache = std::make_shared<VerdictCache>(dir_.path() / "verdicts");
  SeededGpuStages stages(
      gpu, std::make_shared<correctness::SeedSource>(9, 0, std::array<std::uint64_t, 2>{}), cache,
      "s", "j");
  judge(stages);
  judge(stages);
  EXPECT_EQ(gpu->runs, 2);
  EXPECT_EQ(cache->stats().bypassed, 2u);
}

TEST_F(SeededGpuStagesTest, APoolRecordsItsDrawAndRepeatsAreCached) {
  auto gpu = std::make_shared<CountingGpu>("H200");
  auto cache = std::make_shared<VerdictCache>(dir_.path() / "verdicts");
  auto seeds = std::make_shared<correctness::SeedSource>(std::nullopt, 2,
                                                         std::array<std::uint64_t, 2>{3, 4});
  SeededGpuStages stages(gpu, seeds, cache, "s", "j");
  int cached = 0;
  for (int i = 0; i < 40; ++i) {
    const auto e = judge(stages);
    ASSERT_TRUE(e.seed_pool.has_value());
    EXPECT_EQ(e.seed_pool->size, 2);
    EXPECT_EQ(e.input_seed, seeds->pool_seed(task_, e.seed_pool->index));
    cached += e.cached.has_value();
  }
  // Two seeds: at most two verdicts judged, the rest from the cache.
  EXPECT_LE(gpu->runs, 2);
  EXPECT_EQ(cached, 40 - gpu->runs);
}

TEST_F(SeededGpuStagesTest, WithoutACacheTheSeedIsStillChosen) {
  auto gpu = std::make_shared<CountingGpu>("H200");
  SeededGpuStages stages(
      gpu, std::make_shared<correctness::SeedSource>(11, 0, std::array<std::uint64_t, 2>{}),
      nullptr, "s", "j");
  EXPECT_EQ(judge(stages).input_seed, 11u);
  EXPECT_EQ(gpu->seeds, std::vector<std::uint64_t>{11});
}

}  // namespace
}  // namespace ptxbench::eval
