// Task files: a valid definition parses in file order; each kind of mistake is reported with the
// file, the field and the problem; random damage never crashes the parser.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/task/task_render.hpp"
#include "ptxbench/task/unseen_workloads.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::task {
namespace {
using nlohmann::ordered_json;
using ::testing::HasSubstr;

// A small valid GEMM task whose inputs are deliberately not in alphabetical order.
ordered_json valid_task() {
  return ordered_json::parse(R"({
    "name": "gemm_test",
    "op_type": "gemm",
    "description": "C = A · Bᵀ",
    "axes": {"M": {"type": "var"}, "N": {"type": "const", "value": 256},
             "K": {"type": "const", "value": 128}},
    "inputs": {"Z": {"shape": ["M", "K"], "dtype": "bfloat16"},
               "A": {"shape": ["N", "K"], "dtype": "bfloat16"}},
    "outputs": {"C": {"shape": ["M", "N"], "dtype": "float32"}},
    "tolerance": {"atol": 0.01, "rtol": 0.02, "required_matched_ratio": 0.99,
                  "rule": "matches_library"},
    "baseline": "cublaslt.gemm_bf16_nt",
    "requested": {"hopper": ["GMMA", "TMA"]},
    "workloads": [
      {"name": "small", "axes": {"M": 64}, "seed": 7},
      {"name": "big", "axes": {"M": 4096}, "distribution": "spiky", "seed": 9, "headline": true}
    ]
  })");
}

util::Expected<Task> parse(const ordered_json& json) {
  return parse_task(json.dump(), "tasks/gemm/gemm_test.json");
}

std::string error_of(const ordered_json& json) {
  auto task = parse(json);
  EXPECT_FALSE(task.has_value()) << "expected a validation error for " << json.dump();
  return task ? std::string() : task.error().message;
}

TEST(TaskParse, ValidTaskKeepsFileOrderAndValues) {
  auto task = parse(valid_task());
  ASSERT_TRUE(task.has_value()) << task.error().message;
  EXPECT_EQ(task->name, "gemm_test");
  EXPECT_EQ(task->family, "gemm");
  ASSERT_EQ(task->inputs.size(), 2u);
  EXPECT_EQ(task->inputs[0].name, "Z");  // file order is the ABI order
  EXPECT_EQ(task->inputs[1].name, "A");
  EXPECT_EQ(task->outputs[0].dtype, DType::kFloat32);
  ASSERT_EQ(task->axes.size(), 3u);
  EXPECT_EQ(task->axes[0].name, "M");
  EXPECT_FALSE(task->axes[0].is_const);
  EXPECT_EQ(task->axes[1].value, 256);
  EXPECT_DOUBLE_EQ(task->tolerance.rtol, 0.02);
  EXPECT_DOUBLE_EQ(task->tolerance.required_matched_ratio, 0.99);
  EXPECT_EQ(task->tolerance.rule, CorrectnessRule::kMatchesLibrary);
  EXPECT_EQ(task->split, "train");
  EXPECT_FALSE(task->core);
  EXPECT_EQ(task->headline().name, "big");
  EXPECT_EQ(task->headline().distribution, Distribution::kSpiky);
  EXPECT_EQ(task->workloads[0].distribution, Distribution::kNormal);
  EXPECT_EQ(task->workloads[0].seed, 7u);
  ASSERT_EQ(task->requested.count(arch::Arch::kHopper), 1u);
  EXPECT_THAT(task->requested.at(arch::Arch::kHopper), ::testing::ElementsAre("GMMA", "TMA"));
  EXPECT_EQ(task->shape_of(task->inputs[0], task->headline()),
            (std::vector<std::int64_t>{4096, 128}));
  EXPECT_DOUBLE_EQ(task->flops(task->workloads[0]), 2.0 * 64 * 256 * 128);
}

TEST(TaskParse, ReportsFileFieldAndProblem) {
  auto json = valid_task();
  json.erase("baseline");
  EXPECT_EQ(error_of(json), "tasks/gemm/gemm_test.json: baseline: missing");
}

TEST(TaskParse, ReportsEveryProblemNotOnlyTheFirst) {
  auto json = valid_task();
  json.erase("description");
  json["inputs"]["Z"]["dtype"] = "bf16";
  auto error = error_of(json);
  EXPECT_THAT(error, HasSubstr("description: missing"));
  EXPECT_THAT(error, HasSubstr("inputs.Z.dtype: unknown dtype 'bf16'"));
}

struct BadTaskCase {
  std::string label;
  void (*damage)(ordered_json&);
  std::string expected;  // "<field>: <problem>" part of the message
};

class TaskParseRejects : public ::testing::TestWithParam<BadTaskCase> {};

TEST_P(TaskParseRejects, WithFieldAndProblem) {
  auto json = valid_task();
  GetParam().damage(json);
  EXPECT_THAT(error_of(json), HasSubstr("tasks/gemm/gemm_test.json: " + GetParam().expected));
}

INSTANTIATE_TEST_SUITE_P(
    Mistakes, TaskParseRejects,
    ::testing::Values(
        BadTaskCase{"MissingName", [](ordered_json& j) { j.erase("name"); }, "name: missing"},
        BadTaskCase{"MissingWorkloads", [](ordered_json& j) { j.erase("workloads"); },
                    "workloads: missing"},
        BadTaskCase{"BadDtype", [](ordered_json& j) { j["outputs"]["C"]["dtype"] = "double"; },
                    "outputs.C.dtype: unknown dtype 'double'"},
        BadTaskCase{"UndefinedAxis",
                    [](ordered_json& j) {
                      j["inputs"]["A"]["shape"] = {"N", "Q"};
                    },
                    "inputs.A.shape: axis 'Q' is not defined in axes"},
        BadTaskCase{"ConstAxisWithoutValue", [](ordered_json& j) { j["axes"]["N"].erase("value"); },
                    "axes.N.value: missing"},
        BadTaskCase{"UnknownAxisType", [](ordered_json& j) { j["axes"]["N"]["type"] = "fixed"; },
                    "axes.N.type: unknown 'fixed'"},
        BadTaskCase{"VarAxisWithoutWorkloadValue",
                    [](ordered_json& j) { j["workloads"][0]["axes"] = ordered_json::object(); },
                    "workloads[0].axes: var axis 'M' has no value"},
        BadTaskCase{"WorkloadSetsConstAxis",
                    [](ordered_json& j) { j["workloads"][0]["axes"]["N"] = 512; },
                    "workloads[0].axes.N: axis is const"},
        BadTaskCase{"NoHeadline", [](ordered_json& j) { j["workloads"][1]["headline"] = false; },
                    "workloads: exactly one workload must be the headline, found 0"},
        BadTaskCase{"TwoHeadlines", [](ordered_json& j) { j["workloads"][0]["headline"] = true; },
                    "workloads: exactly one workload must be the headline, found 2"},
        BadTaskCase{"DuplicateWorkloadName",
                    [](ordered_json& j) { j["workloads"][1]["name"] = "small"; },
                    "workloads[1].name: duplicate workload name 'small'"},
        BadTaskCase{"NegativeSeed", [](ordered_json& j) { j["workloads"][0]["seed"] = -1; },
                    "workloads[0].seed: must be a non-negative integer"},
        BadTaskCase{"UnknownDistribution",
                    [](ordered_json& j) { j["workloads"][0]["distribution"] = "gaussian"; },
                    "workloads[0].distribution: unknown 'gaussian'"},
        BadTaskCase{"UnknownArch", [](ordered_json& j) { j["requested"]["ampere"] = {"HMMA"}; },
                    "requested.ampere: unknown arch"},
        BadTaskCase{"SmNameIsNotAnArchName",
                    [](ordered_json& j) { j["requested"]["sm_90a"] = {"GMMA"}; },
                    "requested.sm_90a: unknown arch"},
        BadTaskCase{"LowerCaseFamily", [](ordered_json& j) { j["requested"]["hopper"] = {"gmma"}; },
                    "requested.hopper: families are upper-case names"},
        BadTaskCase{"UnknownBaseline", [](ordered_json& j) { j["baseline"] = "cublas.sgemm"; },
                    "baseline: unknown 'cublas.sgemm'"},
        BadTaskCase{"UnknownOpType", [](ordered_json& j) { j["op_type"] = "conv2d"; },
                    "op_type: unknown 'conv2d'"},
        BadTaskCase{"OpTypeAxisMissing",
                    [](ordered_json& j) {
                      j["op_type"] = "mha_fwd_lse";
                      j["baseline"] = "cudnn.sdpa_fwd";
                    },
                    "axes: op_type mha_fwd_lse needs an axis named 'B'"},
        BadTaskCase{"RatioOutOfRange",
                    [](ordered_json& j) { j["tolerance"]["required_matched_ratio"] = 1.5; },
                    "tolerance.required_matched_ratio: must be in [0, 1]"},
        BadTaskCase{"NegativeAtol", [](ordered_json& j) { j["tolerance"]["atol"] = -1; },
                    "tolerance.atol: must be in"},
        BadTaskCase{"UnknownRule", [](ordered_json& j) { j["tolerance"]["rule"] = "close_enough"; },
                    "tolerance.rule: must be \"matches_library\" or \"as_accurate_as_library\""},
        BadTaskCase{"UnknownToleranceField", [](ordered_json& j) { j["tolerance"]["atl"] = 0.1; },
                    "tolerance.atl: unknown field"},
        BadTaskCase{"BadSplit", [](ordered_json& j) { j["split"] = "test"; },
                    "split: unknown 'test'"},
        BadTaskCase{"UnknownField", [](ordered_json& j) { j["worklaods"] = ordered_json::array(); },
                    "worklaods: unknown field"},
        BadTaskCase{"OutputNamedLikeInput",
                    [](ordered_json& j) { j["outputs"]["A"] = j["outputs"]["C"]; },
                    "outputs.A: an input has the same name"},
        BadTaskCase{"CausalNotBoolean",
                    [](ordered_json& j) {
                      j["parameters"] = {{"causal", 2}};
                    },
                    "parameters.causal: must be 0 or 1"}),
    [](const ::testing::TestParamInfo<BadTaskCase>& param) { return param.param.label; });

TEST(TaskParse, JsonSyntaxErrorNamesTheFile) {
  auto task = parse_task("{\"name\": ", "broken.json");
  ASSERT_FALSE(task.has_value());
  EXPECT_THAT(task.error().message, HasSubstr("broken.json: JSON: "));
}

TEST(TaskParse, DuplicateKeysAreReportedNotSilentlyDropped) {
  auto text = valid_task().dump();
  // Two inputs named "A": JSON keeps one, the task file had a mistake.
  const auto at = text.find("\"Z\":");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 4, "\"A\":");
  auto task = parse_task(text, "dup.json");
  ASSERT_FALSE(task.has_value());
  EXPECT_THAT(task.error().message, HasSubstr("dup.json: inputs: key 'A' appears twice"));
  auto nested = parse_task(R"({"name": "a", "name": "b"})", "top.json");
  ASSERT_FALSE(nested.has_value());
  EXPECT_THAT(nested.error().message, HasSubstr("top.json: (top level): key 'name' appears twice"));
}

// Odd input that used to crash: names long enough to overflow std::regex's recursion, a number
// no double holds, extents whose byte sizes overflow.
TEST(TaskParse, OddInputIsAnErrorNotACrash) {
  auto long_name = valid_task();
  long_name["name"] = std::string(50000, 'a');
  EXPECT_THAT(error_of(long_name),
              HasSubstr("tasks/gemm/gemm_test.json: name: must be an identifier"));
  auto long_family = valid_task();
  long_family["requested"]["hopper"] = {std::string(50000, 'G')};
  EXPECT_THAT(error_of(long_family), HasSubstr("requested.hopper"));

  std::string text = valid_task().dump();
  const std::string atol = "\"atol\":0.01";
  ASSERT_NE(text.find(atol), std::string::npos);
  text.replace(text.find(atol), atol.size(), "\"atol\":1e400");
  auto huge_number = parse_task(text, "tasks/gemm/gemm_test.json");
  ASSERT_FALSE(huge_number);
  EXPECT_THAT(huge_number.error().message, HasSubstr("tasks/gemm/gemm_test.json: JSON:"));

  auto huge_extent = valid_task();
  huge_extent["workloads"][1]["axes"]["M"] = std::int64_t{1} << 62;
  EXPECT_THAT(error_of(huge_extent), HasSubstr("workloads.big: tensor Z would hold more than"));
  auto too_big = valid_task();
  too_big["workloads"][1]["axes"]["M"] = std::uint64_t{1} << 63;
  EXPECT_THAT(error_of(too_big), HasSubstr("workloads[1].axes.M"));
}

TEST(TaskParse, TopLevelMustBeAnObject) {
  auto task = parse_task("[1, 2]", "list.json");
  ASSERT_FALSE(task.has_value());
  EXPECT_THAT(task.error().message, HasSubstr("list.json: (top level): must be a JSON object"));
}

// Random damage (truncation, byte flips, deleted fields) must come back as a value, never as an
// exception or a crash.
TEST(TaskParse, RandomDamageNeverThrows) {
  const std::string text = valid_task().dump(2);
  std::mt19937 rng(12345);
  int rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string damaged = text;
    switch (i % 3) {
      case 0:
        damaged.resize(rng() % damaged.size());
        break;
      case 1:
        for (int flips = 0; flips < 3; ++flips)
          damaged[rng() % damaged.size()] = static_cast<char>(rng() % 128);
        break;
      default: {
        auto json = valid_task();
        auto keys = std::vector<std::string>{};
        for (const auto& item : json.items()) keys.push_back(item.key());
        json.erase(keys[rng() % keys.size()]);
        damaged = json.dump();
      }
    }
    util::Expected<Task> task = util::make_error("not parsed");
    ASSERT_NO_THROW(task = parse_task(damaged, "fuzz.json")) << damaged;
    if (!task) {
      ++rejected;
      EXPECT_THAT(task.error().message, HasSubstr("fuzz.json: "));
    }
  }
  EXPECT_GT(rejected, 1000);  // the damage is real: most variants must be rejected
}

TEST(TaskFlops, AttentionForwardBackwardAndCausal) {
  auto json = ordered_json::parse(R"({
    "name": "mha", "op_type": "mha_fwd_lse", "description": "attention",
    "axes": {"B": {"type": "const", "value": 2}, "H": {"type": "const", "value": 3},
             "S": {"type": "var"}, "D": {"type": "const", "value": 64}},
    "inputs": {"Q": {"shape": ["B", "H", "S", "D"], "dtype": "bfloat16"}},
    "outputs": {"O": {"shape": ["B", "H", "S", "D"], "dtype": "bfloat16"}},
    "parameters": {"causal": 0},
    "tolerance": {"atol": 0.01, "rtol": 0.01, "required_matched_ratio": 1},
    "baseline": "cudnn.sdpa_fwd", "requested": {"blackwell": ["UTCMMA"]},
    "workloads": [{"name": "S128", "axes": {"S": 128}, "headline": true}]
  })");
  auto forward = parse_task(json.dump(), "f.json");
  ASSERT_TRUE(forward.has_value()) << forward.error().message;
  const double full = 4.0 * 2 * 3 * 128 * 128 * 64;
  EXPECT_DOUBLE_EQ(forward->flops(forward->headline()), full);

  json["parameters"]["causal"] = true;
  auto causal = parse_task(json.dump(), "f.json");
  ASSERT_TRUE(causal.has_value()) << causal.error().message;
  EXPECT_DOUBLE_EQ(causal->flops(causal->headline()), full / 2);

  json["op_type"] = "mha_bwd";
  json["baseline"] = "cudnn.sdpa_bwd";
  auto backward = parse_task(json.dump(), "f.json");
  ASSERT_TRUE(backward.has_value()) << backward.error().message;
  EXPECT_DOUBLE_EQ(backward->flops(backward->headline()), 2.5 * full / 2);
}

TEST(TaskSuiteLoad, DuplicateNamesAcrossFilesAreReported) {
  util::TempDir dir;
  const std::string text = valid_task().dump();
  std::filesystem::create_directories(dir.path() / "a");
  std::filesystem::create_directories(dir.path() / "b");
  util::write_file_atomic(dir.path() / "a" / "one.json", text);
  util::write_file_atomic(dir.path() / "b" / "two.json", text);
  auto suite = load_suite(dir.path());
  ASSERT_FALSE(suite.has_value());
  EXPECT_THAT(suite.error().message, HasSubstr("name: duplicate task name 'gemm_test'"));
}

TEST(TaskSuiteLoad, ReportsBadFilesAndMissingDirectory) {
  util::TempDir dir;
  std::filesystem::create_directories(dir.path() / "gemm");
  util::write_file_atomic(dir.path() / "gemm" / "bad.json", "{}");
  auto suite = load_suite(dir.path());
  ASSERT_FALSE(suite.has_value());
  EXPECT_THAT(suite.error().message, HasSubstr("bad.json: name: missing"));
  EXPECT_FALSE(load_suite(dir.path() / "absent").has_value());
  EXPECT_FALSE(load_task_file(dir.path() / "absent.json").has_value());
}

// A symlink loop among the task files (or the family folders) is a problem of that file, not a
// crash of the loader.
TEST(TaskSuiteLoad, ASymlinkLoopIsAProblemOfItsFile) {
  util::TempDir dir;
  std::filesystem::create_directories(dir.path() / "gemm");
  util::write_file_atomic(dir.path() / "gemm" / "good.json", valid_task().dump());
  std::filesystem::create_symlink("loop.json", dir.path() / "gemm" / "loop.json");
  auto suite = load_suite(dir.path());
  ASSERT_FALSE(suite.has_value());
  EXPECT_THAT(suite.error().message,
              HasSubstr((dir.path() / "gemm" / "loop.json").string() + ": "));
  EXPECT_THAT(suite.error().message, HasSubstr("symbolic links"));
  std::filesystem::remove(dir.path() / "gemm" / "loop.json");
  std::filesystem::create_symlink("family", dir.path() / "family");
  auto family = load_suite(dir.path());
  ASSERT_FALSE(family.has_value());
  EXPECT_THAT(family.error().message, HasSubstr((dir.path() / "family").string() + ": "));
}

TEST(TaskRender, ShowsSignatureInAbiOrderAndRequestedFamilies) {
  auto task = parse(valid_task());
  ASSERT_TRUE(task.has_value()) << task.error().message;
  auto text = render_for_model(*task, arch::Arch::kHopper);
  EXPECT_THAT(text, HasSubstr("void run(tvm::ffi::TensorView Z, tvm::ffi::TensorView A, "
                              "tvm::ffi::TensorView C);"));
  EXPECT_THAT(text, HasSubstr("GMMA: wgmma.mma_async"));
  EXPECT_THAT(text, HasSubstr("M=4096 (spiky inputs) (headline"));
  EXPECT_THAT(text, HasSubstr("sm_90a"));
  auto blackwell = render_for_model(*task, arch::Arch::kBlackwell);
  EXPECT_THAT(blackwell, HasSubstr("none for this arch"));
}

}  // namespace
}  // namespace ptxbench::task

namespace ptxbench::task {
namespace {

TEST(UnseenRule, MakesTheDocumentedSizes) {
  // tasks/gemm: M in [1, 12345], shown 70 ... 8828, headline 8192.
  EXPECT_EQ(unseen_values(1, 12345, {70, 232, 972, 2379, 8192, 8828}, 8192, std::nullopt),
            (std::vector<std::int64_t>{1, 4415, 8191, 12345}));
  // Ragged S: [100, 5000], shown 512 ... 16384, headline 4096.
  EXPECT_EQ(unseen_values(100, 5000, {512, 1024, 2048, 4096, 8192, 16384}, 4096, std::nullopt),
            (std::vector<std::int64_t>{100, 2896, 4095, 5000}));
  // tasks/mha_*: S a declared multiple of 128 in [128, 4992].
  EXPECT_EQ(unseen_values(128, 4992, {512, 1024, 2048, 4096, 8192, 16384}, 4096, 128),
            (std::vector<std::int64_t>{128, 2816, 3968, 4992}));
  // A declared multiple is respected; shown values and repeats are dropped.
  EXPECT_EQ(unseen_values(64, 5120, {512, 1024, 2048, 4096}, 4096, 64),
            (std::vector<std::int64_t>{64, 2880, 4032, 5120}));
  EXPECT_EQ(unseen_values(512, 4096, {512, 4096}, 4096, std::nullopt),
            (std::vector<std::int64_t>{1448, 4095}));
}

TEST(UnseenRule, WorkloadsVaryOneAxisAndAreMarkedUnseen) {
  auto json = valid_task();
  json["unseen"] = {{"bounds", {{"M", {1, 5000}}}}};
  auto task = parse(json);
  ASSERT_TRUE(task.has_value()) << task.error().message;
  const auto unseen = unseen_workloads(*task);
  ASSERT_EQ(unseen.size(), 4u);  // 1, 512+1 (geometric mean of 64 and 4096), 4095, 5000
  EXPECT_EQ(unseen[0].name, "unseen_M1");
  EXPECT_EQ(unseen[1].axes.at("M"), 513);
  for (const auto& w : unseen) {
    EXPECT_TRUE(w.unseen);
    EXPECT_FALSE(w.headline);
    EXPECT_NE(w.seed, 0u);
  }
  EXPECT_EQ(unseen_workloads(*task)[2].seed, unseen[2].seed) << "seeds are fixed per workload";
  // The shown workloads are the task's workloads; the prompt never lists the others.
  EXPECT_EQ(task->workloads.size(), 2u);
  const auto text = render_for_model(*task, arch::Arch::kHopper);
  EXPECT_THAT(text, HasSubstr("Correctness is also checked on sizes not listed here"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("M=4095")));
}

TEST(UnseenRule, BadBoundsAndMultiplesAreReported) {
  auto json = valid_task();
  json["unseen"] = {{"bounds", {{"N", {1, 2}}, {"M", {9, 3}}}}, {"extra", 1}};
  const auto error = error_of(json);
  EXPECT_THAT(error, HasSubstr("unseen.bounds.N: must name a var axis"));
  EXPECT_THAT(error, HasSubstr("unseen.bounds.M: must be [lo, hi]"));
  EXPECT_THAT(error, HasSubstr("unseen.extra: unknown field"));

  json = valid_task();
  json["axes"]["M"]["multiple_of"] = 128;
  EXPECT_THAT(error_of(json), HasSubstr("workloads.small.axes.M: must be a multiple of 128"));
  json["workloads"][0]["axes"]["M"] = 128;
  json["unseen"] = {{"bounds", {{"M", {100, 4096}}}}};
  EXPECT_THAT(error_of(json), HasSubstr("lo and hi must be multiples of 128"));
  json["unseen"] = {{"bounds", {{"M", {128, 4096}}}}};
  auto task = parse(json);
  ASSERT_TRUE(task.has_value()) << task.error().message;
  EXPECT_THAT(render_for_model(*task, arch::Arch::kHopper), HasSubstr("a multiple of 128"));
  for (const auto& w : unseen_workloads(*task)) EXPECT_EQ(w.axes.at("M") % 128, 0) << w.name;
}

}  // namespace
}  // namespace ptxbench::task
