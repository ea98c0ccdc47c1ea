// The built-in suite (tasks/): every file loads, and names, shapes, sizes, splits and FLOPs agree
// with the facts the suite is built from.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>

#include "ptxbench/sass/sass.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/task/task_render.hpp"

namespace ptxbench::task {
namespace {

class BuiltInSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto loaded = load_suite(default_tasks_dir());
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    suite_ = new std::vector<Task>(std::move(*loaded));
  }
  static void TearDownTestSuite() {
    delete suite_;
    suite_ = nullptr;
  }
  static const std::vector<Task>& suite() { return *suite_; }
  static const Task& get(std::string_view name) {
    const Task* task = find_task(suite(), name);
    if (task == nullptr) throw std::runtime_error("no task " + std::string(name));
    return *task;
  }

 private:
  static inline std::vector<Task>* suite_ = nullptr;
};

std::set<std::int64_t> values_of(const Task& task, const std::string& axis) {
  std::set<std::int64_t> values;
  for (const auto& w : task.workloads) values.insert(task.axis_value(axis, w));
  return values;
}

std::vector<std::string> shape(const Task& task, const std::vector<TensorSpec>& tensors) {
  std::vector<std::string> out;
  for (const auto& t : tensors) {
    std::string text = t.name + ":" + std::string(to_string(t.dtype));
    for (const auto& a : t.shape) text += ":" + a;
    out.push_back(text);
  }
  (void)task;
  return out;
}

TEST_F(BuiltInSuite, HasThe37TasksInFiveFamilies) {
  std::map<std::string, int> per_family;
  for (const auto& t : suite()) ++per_family[t.family];
  EXPECT_EQ(suite().size(), 37u);
  EXPECT_EQ(per_family["gemm"], 17);
  EXPECT_EQ(per_family["mha_fwd"], 8);
  EXPECT_EQ(per_family["mha_bwd"], 6);
  EXPECT_EQ(per_family["gemm_fp8"], 4);
  EXPECT_EQ(per_family["mha_decode"], 2);
}

TEST_F(BuiltInSuite, GemmNamesMatchShapesAndSizes) {
  const std::regex pattern(R"(gemm_n(\d+)_k(\d+))");
  const std::set<std::int64_t> sizes{70, 232, 972, 2379, 8192, 8828};
  int heldout = 0;
  for (const auto& t : suite()) {
    if (t.family != "gemm") continue;
    SCOPED_TRACE(t.name);
    std::smatch match;
    ASSERT_TRUE(std::regex_match(t.name, match, pattern));
    EXPECT_EQ(t.op_type, ptxbench::task::OpType::kGemm);
    EXPECT_EQ(t.find_axis("N")->value, std::stoll(match[1]));
    EXPECT_EQ(t.find_axis("K")->value, std::stoll(match[2]));
    EXPECT_FALSE(t.find_axis("M")->is_const);
    EXPECT_EQ(values_of(t, "M"), sizes);
    EXPECT_EQ(t.axis_value("M", t.headline()), 8192);
    EXPECT_THAT(shape(t, t.inputs), ::testing::ElementsAre("A:bfloat16:M:K", "B:bfloat16:N:K"));
    EXPECT_THAT(shape(t, t.outputs), ::testing::ElementsAre("C:bfloat16:M:N"));
    EXPECT_EQ(t.baseline, ptxbench::task::Baseline::kCublasLtGemmBf16Nt);
    EXPECT_DOUBLE_EQ(t.flops(t.headline()), 2.0 * 8192 *
                                                static_cast<double>(*t.find_axis("N")->value) *
                                                static_cast<double>(*t.find_axis("K")->value));
    heldout += t.split == "heldout" ? 1 : 0;
  }
  EXPECT_EQ(heldout, 3);
}

TEST_F(BuiltInSuite, AttentionNamesMatchHeadDimMaskAndSizes) {
  const std::regex pattern(R"(mha_(fwd_lse|bwd)_d(\d+)(_causal)?)");
  const std::set<std::int64_t> sizes{512, 1024, 2048, 4096, 8192, 16384};
  for (const auto& t : suite()) {
    if (t.family != "mha_fwd" && t.family != "mha_bwd") continue;
    SCOPED_TRACE(t.name);
    std::smatch match;
    ASSERT_TRUE(std::regex_match(t.name, match, pattern));
    const bool forward = match[1] == "fwd_lse";
    const std::int64_t d = std::stoll(match[2]);
    EXPECT_EQ(t.family, forward ? "mha_fwd" : "mha_bwd");
    EXPECT_EQ(t.op_type,
              forward ? ptxbench::task::OpType::kMhaFwdLse : ptxbench::task::OpType::kMhaBwd);
    EXPECT_EQ(t.find_axis("D")->value, d);
    EXPECT_EQ(t.find_axis("B")->value, 4);
    EXPECT_EQ(t.find_axis("H")->value, 48);
    EXPECT_EQ(values_of(t, "S"), sizes);
    EXPECT_EQ(t.axis_value("S", t.headline()), 4096);
    EXPECT_EQ(t.parameters.at("causal"), match[3].matched ? 1.0 : 0.0);
    EXPECT_NEAR(t.parameters.at("scale"), 1.0 / std::sqrt(static_cast<double>(d)), 1e-12);
    EXPECT_EQ(t.split, (d == 96 || d == 256) ? "heldout" : "train");
    if (forward) {
      EXPECT_THAT(
          shape(t, t.inputs),
          ::testing::ElementsAre("Q:bfloat16:B:H:S:D", "K:bfloat16:B:H:S:D", "V:bfloat16:B:H:S:D"));
      EXPECT_THAT(shape(t, t.outputs),
                  ::testing::ElementsAre("O:bfloat16:B:H:S:D", "LSE:float32:B:H:S"));
      EXPECT_EQ(t.baseline, ptxbench::task::Baseline::kCudnnSdpaFwd);
    } else {
      EXPECT_THAT(
          shape(t, t.inputs),
          ::testing::ElementsAre("Q:bfloat16:B:H:S:D", "K:bfloat16:B:H:S:D", "V:bfloat16:B:H:S:D",
                                 "O:bfloat16:B:H:S:D", "dO:bfloat16:B:H:S:D", "LSE:float32:B:H:S"));
      EXPECT_THAT(shape(t, t.outputs),
                  ::testing::ElementsAre("dQ:bfloat16:B:H:S:D", "dK:bfloat16:B:H:S:D",
                                         "dV:bfloat16:B:H:S:D"));
      EXPECT_EQ(t.baseline, ptxbench::task::Baseline::kCudnnSdpaBwd);
    }
  }
}

// FP8: e4m3 operands with per-tensor scales, bf16 out; the core GEMM's shape is one of them and
// the long-K shape is where an accumulation without promotion shows.
TEST_F(BuiltInSuite, Fp8GemmNamesMatchShapesScalesAndSizes) {
  const std::regex pattern(R"(gemm_fp8_n(\d+)_k(\d+))");
  std::set<std::string> names;
  for (const auto& t : suite()) {
    if (t.family != "gemm_fp8") continue;
    SCOPED_TRACE(t.name);
    names.insert(t.name);
    std::smatch match;
    ASSERT_TRUE(std::regex_match(t.name, match, pattern));
    EXPECT_EQ(t.op_type, OpType::kGemmFp8);
    EXPECT_EQ(t.find_axis("N")->value, std::stoll(match[1]));
    EXPECT_EQ(t.find_axis("K")->value, std::stoll(match[2]));
    EXPECT_EQ(values_of(t, "M"), (std::set<std::int64_t>{70, 232, 972, 2379, 8192, 8828}));
    EXPECT_EQ(t.axis_value("M", t.headline()), 8192);
    EXPECT_THAT(shape(t, t.inputs),
                ::testing::ElementsAre("A:float8_e4m3fn:M:K", "B:float8_e4m3fn:N:K",
                                       "SCALE_A:float32", "SCALE_B:float32"));
    EXPECT_THAT(shape(t, t.outputs), ::testing::ElementsAre("C:bfloat16:M:N"));
    EXPECT_EQ(t.baseline, Baseline::kCublasLtGemmFp8Nt);
    EXPECT_DOUBLE_EQ(t.flops(t.headline()), 2.0 * 8192 *
                                                static_cast<double>(*t.find_axis("N")->value) *
                                                static_cast<double>(*t.find_axis("K")->value));
  }
  EXPECT_TRUE(names.contains("gemm_fp8_n7168_k5120"));   // the core GEMM's shape
  EXPECT_TRUE(names.contains("gemm_fp8_n4096_k14336"));  // long K
}

TEST_F(BuiltInSuite, DecodeTasksAreGroupedQueryOverRaggedCaches) {
  int decode = 0;
  for (const auto& t : suite()) {
    if (t.family != "mha_decode") continue;
    SCOPED_TRACE(t.name);
    ++decode;
    EXPECT_EQ(t.op_type, OpType::kMhaDecode);
    EXPECT_EQ(t.find_axis("H")->value, 32);
    EXPECT_EQ(t.find_axis("HKV")->value, 8);
    EXPECT_EQ(t.find_axis("D")->value, 128);
    EXPECT_EQ(values_of(t, "S"), (std::set<std::int64_t>{1024, 4096, 8192, 16384, 32768}));
    EXPECT_EQ(t.axis_value("S", t.headline()), 32768);  // the long-KV workload is timed
    EXPECT_THAT(shape(t, t.inputs),
                ::testing::ElementsAre("Q:bfloat16:B:H:D", "K:bfloat16:B:HKV:S:D",
                                       "V:bfloat16:B:HKV:S:D", "KV_LEN:int32:B"));
    EXPECT_THAT(shape(t, t.outputs), ::testing::ElementsAre("O:bfloat16:B:H:D", "LSE:float32:B:H"));
    EXPECT_EQ(t.baseline, Baseline::kCudnnSdpaDecode);
    EXPECT_NEAR(t.parameters.at("scale"), 1.0 / std::sqrt(128.0), 1e-12);
    const double b = static_cast<double>(*t.find_axis("B")->value);
    EXPECT_DOUBLE_EQ(t.flops(t.headline()), 4.0 * b * 32 * 128 * (32768 + 1) / 2);
  }
  EXPECT_EQ(decode, 2);
}

TEST_F(BuiltInSuite, CoreTasksAreTheFiveOfTheResearch) {
  std::set<std::string> core;
  for (const auto& t : suite()) {
    if (t.core) core.insert(t.name);
  }
  EXPECT_EQ(core, (std::set<std::string>{"gemm_n7168_k5120", "mha_fwd_lse_d128",
                                         "mha_fwd_lse_d128_causal", "mha_bwd_d128",
                                         "mha_bwd_d128_causal"}));
}

TEST_F(BuiltInSuite, HeadlineFlopsOfTheCoreTasks) {
  const auto& gemm = get("gemm_n7168_k5120");
  EXPECT_DOUBLE_EQ(gemm.flops(gemm.headline()), 2.0 * 8192 * 7168 * 5120);
  const double forward = 4.0 * 4 * 48 * 4096.0 * 4096.0 * 128;
  const auto& fwd = get("mha_fwd_lse_d128");
  EXPECT_DOUBLE_EQ(fwd.flops(fwd.headline()), forward);
  const auto& fwd_causal = get("mha_fwd_lse_d128_causal");
  EXPECT_DOUBLE_EQ(fwd_causal.flops(fwd_causal.headline()), forward / 2);
  const auto& bwd = get("mha_bwd_d128");
  EXPECT_DOUBLE_EQ(bwd.flops(bwd.headline()), 2.5 * forward);
  const auto& bwd_causal = get("mha_bwd_d128_causal");
  EXPECT_DOUBLE_EQ(bwd_causal.flops(bwd_causal.headline()), 2.5 * forward / 2);
}

TEST_F(BuiltInSuite, EveryTaskHasNormalAndSpikyInputsAndTheDefaultTolerance) {
  for (const auto& t : suite()) {
    SCOPED_TRACE(t.name);
    int spiky = 0, normal = 0;
    for (const auto& w : t.workloads) {
      spiky += w.distribution == Distribution::kSpiky ? 1 : 0;
      normal += w.distribution == Distribution::kNormal ? 1 : 0;
    }
    EXPECT_GE(spiky, 1);
    EXPECT_GE(normal, 1);
    // docs/correctness.md, "Fresh inputs": uniform, large magnitudes, and the op's hard case.
    std::set<Distribution> kinds;
    for (const auto& w : t.workloads) kinds.insert(w.distribution);
    EXPECT_TRUE(kinds.contains(Distribution::kUniform));
    // Large magnitudes only where the math allows: a GEMM's products and sums stay well
    // conditioned; attention scores of 1024·N(0, 1) inputs saturate the softmax, whose outputs then
    // hang on single bf16 roundings (the H200 showed expert kernels and the library disagreeing
    // there seed by seed, docs/correctness.md).
    EXPECT_EQ(kinds.contains(Distribution::kLarge), t.op_type == ptxbench::task::OpType::kGemm);
    EXPECT_TRUE(
        kinds.contains(is_gemm(t.op_type) ? Distribution::kNearTies : Distribution::kEqualScores));
    EXPECT_EQ(t.headline().distribution, Distribution::kNormal);
    EXPECT_DOUBLE_EQ(t.tolerance.atol, 1e-2);
    EXPECT_DOUBLE_EQ(t.tolerance.rtol, 1e-2);
    EXPECT_EQ(t.tolerance.rule, CorrectnessRule::kAsAccurateAsLibrary);  // the default
    EXPECT_DOUBLE_EQ(t.tolerance.required_matched_ratio, 1.0);
  }
}

// FP8 GEMMs demand the FP8 MMA itself (a cast to bf16 first gives HGMMA, never QGMMA); decode is
// bound by memory, so it demands the copy engine and its barriers, not tensor cores.
TEST_F(BuiltInSuite, RequestedFamiliesAreTrackedInTheSassOfTheirArch) {
  for (const auto& t : suite()) {
    SCOPED_TRACE(t.name);
    if (t.op_type == OpType::kGemmFp8) {
      EXPECT_THAT(t.requested.at(arch::Arch::kHopper),
                  ::testing::ElementsAre("QGMMA", "TMA", "SYNCS"));
      EXPECT_THAT(t.requested.at(arch::Arch::kBlackwell),
                  ::testing::ElementsAre("UTCQMMA", "TMEM", "TMA"));
    } else if (t.op_type == OpType::kMhaDecode) {
      EXPECT_THAT(t.requested.at(arch::Arch::kHopper), ::testing::ElementsAre("TMA", "SYNCS"));
      EXPECT_THAT(t.requested.at(arch::Arch::kBlackwell), ::testing::ElementsAre("TMA", "SYNCS"));
    } else {
      EXPECT_THAT(t.requested.at(arch::Arch::kHopper),
                  ::testing::ElementsAre("GMMA", "TMA", "SYNCS"));
      EXPECT_THAT(t.requested.at(arch::Arch::kBlackwell),
                  ::testing::ElementsAre("UTCMMA", "TMEM", "TMA"));
    }
    for (const auto& [a, families] : t.requested) {
      const auto& tracked = sass::tracked_families(a);
      for (const auto& family : families) {
        EXPECT_THAT(tracked, ::testing::Contains(family)) << arch::to_string(a);
      }
    }
  }
}

TEST_F(BuiltInSuite, EveryTaskRendersForEachArch) {
  for (const auto& t : suite()) {
    for (auto a : arch::all()) {
      auto text = render_for_model(t, a);
      EXPECT_THAT(text, ::testing::HasSubstr(t.name));
      EXPECT_THAT(text, ::testing::HasSubstr(t.description));
    }
  }
}

}  // namespace
}  // namespace ptxbench::task
