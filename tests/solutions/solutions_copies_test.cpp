// The solutions are single files, so each embeds the PTX wrappers and shared kernel bodies it
// uses; solutions/ptx/ and solutions/kernels/ are their one source of truth. Every embedded copy
// must equal its source block, every file must carry a header naming a task of the suite, an arch
// and the verdict the evaluation must reach.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fenced_block.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"
#include "solution_files.hpp"

namespace ptxbench::solutions_test {
namespace {
using ::testing::HasSubstr;

std::vector<std::string> solution_names() {
  std::vector<std::string> names;
  auto files = load_solutions();
  if (!files) return {"<unreadable>"};
  for (const auto& file : *files) {
    names.push_back(file.path.parent_path().filename().string() + "_" + file.path.stem().string());
  }
  return names;
}

const SolutionFile* find_solution(const std::vector<SolutionFile>& files, const std::string& name) {
  for (const auto& file : files) {
    if (file.path.parent_path().filename().string() + "_" + file.path.stem().string() == name) {
      return &file;
    }
  }
  return nullptr;
}

class EverySolution : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto files = load_solutions();
    ASSERT_TRUE(files.has_value()) << files.error().message;
    files_ = std::move(*files);
    solution_ = find_solution(files_, GetParam());
    ASSERT_NE(solution_, nullptr) << GetParam();
  }
  std::vector<SolutionFile> files_;
  const SolutionFile* solution_ = nullptr;
};

TEST_P(EverySolution, EmbedsWrapperCopiesEqualToSolutionsPtx) {
  auto blocks = embedded_blocks(solution_->text);
  ASSERT_TRUE(blocks.has_value()) << solution_->path << ": " << blocks.error().message;
  EXPECT_FALSE(blocks->empty()) << solution_->path << " embeds no PTX wrapper block";
  for (const auto& block : *blocks) {
    EXPECT_EQ(compare_with_source(block), "")
        << solution_->path << ":" << block.first_line << " (refresh with "
        << "solutions/sync-copies.sh " << solution_->path.string() << ")";
  }
}

TEST_P(EverySolution, NamesATaskOfTheSuiteAndAnExportedRun) {
  auto suite = task::load_suite(repo_root() / "tasks");
  ASSERT_TRUE(suite.has_value()) << suite.error().message;
  EXPECT_NE(task::find_task(*suite, solution_->header.task), nullptr)
      << solution_->path << " names task " << solution_->header.task;
  EXPECT_THAT(solution_->text, HasSubstr("TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);"));
  EXPECT_THAT(solution_->text, HasSubstr("TVMFFIEnvGetStream(kDLCUDA"));
}

INSTANTIATE_TEST_SUITE_P(Solutions, EverySolution, ::testing::ValuesIn(solution_names()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return param_info.param;
                         });

TEST(Solutions, CoverTheControlsTheBenchmarkNeeds) {
  auto files = load_solutions();
  ASSERT_TRUE(files.has_value()) << files.error().message;
  std::map<std::string, std::string> expect;  // folder/stem -> verdict
  for (const auto& file : *files) {
    expect[file.path.parent_path().filename().string() + "/" + file.path.stem().string()] =
        file.header.expect;
  }
  EXPECT_EQ(expect["hopper/gemm_bf16_nt_warp_specialized"], "PASSED");
  for (const char* head_dim : {"64", "96", "128", "256"}) {
    for (const char* suffix : {"", "_causal"}) {
      EXPECT_EQ(expect[std::string("hopper/mha_fwd_lse_d") + head_dim + suffix], "PASSED");
    }
  }
  EXPECT_EQ(expect["blackwell/gemm_bf16_nt_tcgen05"], "NOT_RUN");
  EXPECT_EQ(expect["broken/gemm_ampere_mma_sync"], "INSTRUCTIONS_NOT_EXECUTED");
  EXPECT_EQ(expect["broken/gemm_wgmma_path_never_taken"], "INSTRUCTIONS_NOT_EXECUTED");
  EXPECT_EQ(expect["broken/gemm_missing_proxy_fence"], "INCORRECT_NUMERICAL");
  EXPECT_EQ(expect["broken/gemm_wrong_wgmma_swizzle"], "INCORRECT_NUMERICAL");
  EXPECT_EQ(expect["broken/gemm_tail_writes_past_c"], "SANITIZER_ERROR");
  EXPECT_EQ(expect["broken/gemm_producer_phase_deadlock"], "TIMEOUT");
  // The audited timed calls (docs/correctness.md): a cheaper wrong path after 3 calls, and
  // skipped work in every other timed call.
  EXPECT_EQ(expect["broken/gemm_wrong_after_three_calls"], "INCORRECT_NUMERICAL");
  EXPECT_EQ(expect["broken/gemm_skips_every_other_call"], "FORBIDDEN");
  // Attention: the simple honest kernels and the controls derived from them.
  EXPECT_EQ(expect["simple/mha_fwd_lse_wgmma"], "PASSED");
  EXPECT_EQ(expect["simple/mha_fwd_lse_wgmma_causal"], "PASSED");
  EXPECT_EQ(expect["simple/mha_bwd_wgmma"], "PASSED");
  EXPECT_EQ(expect["simple/mha_bwd_wgmma_causal"], "PASSED");
  EXPECT_EQ(expect["blackwell/mha_fwd_lse_tcgen05"], "NOT_RUN");
  EXPECT_EQ(expect["broken/mha_fwd_lse_in_log2"], "INCORRECT_NUMERICAL");
  EXPECT_EQ(expect["broken/mha_fwd_causal_mask_off_by_one"], "INCORRECT_NUMERICAL");
  EXPECT_EQ(expect["broken/mha_fwd_missing_output_rescale"], "INCORRECT_NUMERICAL");
  EXPECT_EQ(expect["broken/mha_fwd_staging_race"], "SANITIZER_ERROR");
  EXPECT_EQ(expect["broken/mha_bwd_tail_tile_past_end"], "SANITIZER_ERROR");
  EXPECT_EQ(expect["broken/mha_bwd_dq_without_atomics"], "INCORRECT_NUMERICAL");
  for (const char* task : {"mha_bwd_d64", "mha_bwd_d64_causal", "mha_bwd_d96", "mha_bwd_d96_causal",
                           "mha_bwd_d128", "mha_bwd_d128_causal"}) {
    EXPECT_EQ(expect[std::string("hopper/") + task], "PASSED") << task;
  }
  // FP8 GEMM and decode attention: the experts and a control per mistake the tasks are for.
  EXPECT_EQ(expect["hopper/gemm_fp8_nt_warp_specialized"], "PASSED");
  EXPECT_EQ(expect["simple/gemm_fp8_wgmma"], "PASSED");
  EXPECT_EQ(expect["blackwell/gemm_fp8_nt_tcgen05"], "NOT_RUN");
  EXPECT_EQ(expect["broken/gemm_fp8_cast_to_bf16"], "INSTRUCTIONS_NOT_EXECUTED");
  EXPECT_EQ(expect["broken/gemm_fp8_missing_scale"], "INCORRECT_NUMERICAL");
  EXPECT_EQ(expect["broken/gemm_fp8_unpromoted_accumulation"], "INCORRECT_NUMERICAL");
  EXPECT_EQ(expect["hopper/mha_decode_split_kv"], "PASSED");
  EXPECT_EQ(expect["broken/mha_decode_missing_length_mask"], "INCORRECT_NUMERICAL");
  EXPECT_EQ(expect["broken/mha_decode_combine_without_lse_rescale"], "INCORRECT_NUMERICAL");
  EXPECT_EQ(expect["broken/mha_decode_split_race"], "INCORRECT_NUMERICAL");
  for (const auto& [name, verdict] : expect) {
    if (name.rfind("broken/", 0) == 0) {
      EXPECT_NE(verdict, "PASSED") << name;
    }
  }
}

// The broken controls other than the Ampere one are the expert kernel with one defect each, so
// that a verdict can only come from that defect. Pinning the size of each difference keeps them
// derived: an edit to the expert kernel that is not carried into the controls fails here.
TEST(BrokenControls, DifferFromTheExpertKernelOnlyByTheirDefect) {
  const std::map<std::string, int> defect_lines = {
      {"gemm_missing_proxy_fence", 2},     {"gemm_producer_phase_deadlock", 2},
      {"gemm_wrong_wgmma_swizzle", 11},    {"gemm_tail_writes_past_c", 51},
      {"gemm_wgmma_path_never_taken", 59}, {"gemm_wrong_after_three_calls", 5},
      {"gemm_skips_every_other_call", 11}};
  const auto root = repo_root() / "solutions";
  auto expert = util::read_file(root / "hopper" / "gemm_bf16_nt_warp_specialized.cu");
  ASSERT_TRUE(expert.has_value()) << expert.error().message;
  for (const auto& [name, lines] : defect_lines) {
    auto control = util::read_file(root / "broken" / (name + ".cu"));
    ASSERT_TRUE(control.has_value()) << control.error().message;
    EXPECT_EQ(changed_code_lines(*expert, *control), lines)
        << name << " is no longer the expert kernel plus its one defect: carry the expert's "
        << "change into it (or, for a new defect, update this count)";
  }
}

// The attention controls are derived the same way from the simple honest kernels in
// solutions/simple/ (which the GPU test proves correct), and so are the causal forms of those.
TEST(BrokenControls, AttentionControlsDifferFromTheirSimpleKernelOnlyByTheirDefect) {
  struct Derived {
    std::string file;  // under solutions/
    std::string base;  // under solutions/
    int lines;
  };
  const std::vector<Derived> derived = {
      {"simple/mha_fwd_lse_wgmma_causal", "simple/mha_fwd_lse_wgmma", 2},
      {"simple/mha_bwd_wgmma_causal", "simple/mha_bwd_wgmma", 2},
      {"broken/mha_fwd_lse_in_log2", "simple/mha_fwd_lse_wgmma", 2},
      {"broken/mha_fwd_missing_output_rescale", "simple/mha_fwd_lse_wgmma", 4},
      {"broken/mha_fwd_staging_race", "simple/mha_fwd_lse_wgmma", 1},
      {"broken/mha_fwd_causal_mask_off_by_one", "simple/mha_fwd_lse_wgmma_causal", 2},
      {"broken/mha_bwd_tail_tile_past_end", "simple/mha_bwd_wgmma", 2},
      {"broken/mha_bwd_dq_without_atomics", "simple/mha_bwd_wgmma", 2}};
  const auto root = repo_root() / "solutions";
  for (const auto& d : derived) {
    auto base = util::read_file(root / (d.base + ".cu"));
    ASSERT_TRUE(base.has_value()) << base.error().message;
    auto file = util::read_file(root / (d.file + ".cu"));
    ASSERT_TRUE(file.has_value()) << file.error().message;
    EXPECT_EQ(changed_code_lines(*base, *file), d.lines)
        << d.file << " is no longer " << d.base << " plus its one change: carry the base's edit "
        << "into it (or, for a new defect, update this count)";
  }
}

// The FP8 GEMM and decode controls are derived from their expert the same way; the cast-to-bf16
// control is the bf16 expert GEMM run on converted copies (its one change: the conversion).
TEST(BrokenControls, Fp8AndDecodeControlsDifferFromTheirExpertOnlyByTheirDefect) {
  struct Derived {
    std::string file;  // under solutions/
    std::string base;  // under solutions/
    int lines;
  };
  const std::vector<Derived> derived = {
      {"broken/gemm_fp8_missing_scale", "hopper/gemm_fp8_nt_warp_specialized", 2},
      {"broken/gemm_fp8_unpromoted_accumulation", "hopper/gemm_fp8_nt_warp_specialized", 11},
      {"broken/gemm_fp8_cast_to_bf16", "hopper/gemm_bf16_nt_warp_specialized", 57},
      {"broken/mha_decode_missing_length_mask", "hopper/mha_decode_split_kv", 6},
      {"broken/mha_decode_combine_without_lse_rescale", "hopper/mha_decode_split_kv", 2},
      {"broken/mha_decode_split_race", "hopper/mha_decode_split_kv", 9}};
  const auto root = repo_root() / "solutions";
  for (const auto& d : derived) {
    auto base = util::read_file(root / (d.base + ".cu"));
    ASSERT_TRUE(base.has_value()) << base.error().message;
    auto file = util::read_file(root / (d.file + ".cu"));
    ASSERT_TRUE(file.has_value()) << file.error().message;
    EXPECT_EQ(changed_code_lines(*base, *file), d.lines)
        << d.file << " is no longer " << d.base << " plus its one change: carry the base's edit "
        << "into it (or, for a new defect, update this count)";
  }
}

// The attention, FP8 and decode worked examples of the `examples` context level are these files
// verbatim (less the header line and the empty comment line after it), so what a model is shown
// is what the GPU test evaluates (Hopper) or what this suite compiles and checks statically
// (Blackwell).
TEST(ContextExamples, AttentionExamplesAreTheSolutionFilesVerbatim) {
  const std::vector<std::pair<std::string, std::string>> examples = {
      {"context/hopper/examples.md", "solutions/simple/mha_fwd_lse_wgmma.cu"},
      {"context/hopper/examples.md", "solutions/simple/mha_bwd_wgmma.cu"},
      {"context/hopper/examples.md", "solutions/simple/gemm_fp8_wgmma.cu"},
      {"context/hopper/examples.md", "solutions/hopper/mha_decode_split_kv.cu"},
      {"context/blackwell/examples.md", "solutions/blackwell/mha_fwd_lse_tcgen05.cu"}};
  for (const auto& [document, file] : examples) {
    auto markdown = util::read_file(repo_root() / document);
    ASSERT_TRUE(markdown.has_value()) << markdown.error().message;
    auto source = util::read_file(repo_root() / file);
    ASSERT_TRUE(source.has_value()) << source.error().message;
    const auto second_newline = source->find('\n', source->find('\n') + 1);
    ASSERT_NE(second_newline, std::string::npos) << file;
    const std::string body = source->substr(second_newline + 1);
    bool found = false;
    for (const auto& block : context_docs::fenced_blocks(*markdown)) {
      found = found || block.code == body;
    }
    EXPECT_TRUE(found) << document << " has no block equal to " << file
                       << " from its third line on (refresh the block from the file)";
  }
}

TEST(BrokenControls, ChangedLinesCountsRemovalsAndAdditions) {
  const std::string base = "#include <cuda.h>\na\nb\nc\n";
  EXPECT_EQ(changed_code_lines(base, base), 0);
  EXPECT_EQ(changed_code_lines(base, "#include <cuda.h>\na\nx\nc\n"), 2);
  EXPECT_EQ(changed_code_lines(base, "#include <cuda.h>\na\nb\nc\nd\n"), 1);
  EXPECT_EQ(changed_code_lines("// spec A\n" + base, "// spec B\n" + base), 0);
}

TEST(PtxWrappers, EachFileHoldsExactlyTheBlockOfItsName) {
  std::set<std::string> families;
  for (const auto& entry : std::filesystem::directory_iterator(ptx_dir())) {
    if (entry.path().extension() != ".cuh") continue;
    auto text = util::read_file(entry.path());
    ASSERT_TRUE(text.has_value()) << text.error().message;
    auto blocks = embedded_blocks(*text);
    ASSERT_TRUE(blocks.has_value()) << entry.path() << ": " << blocks.error().message;
    ASSERT_EQ(blocks->size(), 1u) << entry.path();
    EXPECT_EQ(blocks->front().family, entry.path().stem().string());
    families.insert(blocks->front().family);
  }
  for (const char* family : {"mbarrier", "tma", "wgmma", "wgmma_extra", "fence", "setmaxnreg",
                             "stmatrix", "cluster", "tcgen05", "mma_sync"}) {
    EXPECT_TRUE(families.count(family)) << "missing solutions/ptx/" << family << ".cuh";
  }
}

TEST(EmbeddedCopies, ADriftedCopyIsRejectedWithTheLineThatDiffers) {
  auto text = util::read_file(std::string(PTXBENCH_TEST_DATA_DIR) + "/drifted_copy.cu");
  ASSERT_TRUE(text.has_value()) << text.error().message;
  auto blocks = embedded_blocks(*text);
  ASSERT_TRUE(blocks.has_value()) << blocks.error().message;
  ASSERT_EQ(blocks->size(), 1u);
  EXPECT_THAT(compare_with_source(blocks->front()), HasSubstr("differs from"));
}

TEST(EmbeddedCopies, UnbalancedMarkersAreAnError) {
  EXPECT_FALSE(embedded_blocks("// ptx-begin: tma\nx\n").has_value());
  EXPECT_FALSE(embedded_blocks("// ptx-begin: tma\n// ptx-end: wgmma\n").has_value());
  EXPECT_FALSE(embedded_blocks("// ptx-begin: tma\n// ptx-begin: tma\n").has_value());
  auto unknown = embedded_blocks("// ptx-begin: nosuchfamily\n// ptx-end: nosuchfamily\n");
  ASSERT_TRUE(unknown.has_value());
  EXPECT_THAT(compare_with_source(unknown->front()),
              HasSubstr("no source file for block nosuchfamily"));
}

TEST(SolutionHeaders, MalformedHeadersAreRejected) {
  EXPECT_TRUE(parse_header("// ptxbench: task=t arch=hopper expect=PASSED\nx").has_value());
  EXPECT_FALSE(parse_header("// ptxbench: task=t arch=ampere expect=PASSED\n").has_value());
  EXPECT_FALSE(parse_header("// ptxbench: task=t arch=hopper expect=GREAT\n").has_value());
  EXPECT_FALSE(parse_header("#include <cuda.h>\n").has_value());
}

}  // namespace
}  // namespace ptxbench::solutions_test

namespace ptxbench::solutions_test {
namespace {

// The attention solutions of a family are one shared kernel (the embedded block, source
// solutions/kernels/<block>.cuh) instantiated once per task: each file names its own task,
// instantiates the head dimension and mask that the task's JSON defines, and is otherwise
// identical to the others of its family, so no copy can drift.
struct SharedKernelFamily {
  std::string file_prefix;    // "mha_fwd_lse_"
  std::string block;          // "mha_fwd"
  std::string instantiation;  // "attn::forward"
  int files = 0;
};

std::string without_task_lines(const std::string& text, const std::string& instantiation) {
  std::istringstream lines(text);
  std::string out;
  std::string line;
  std::getline(lines, line);  // the header line names the task
  while (std::getline(lines, line)) {
    if (line.find(instantiation + "<") != std::string::npos) continue;
    out += line + "\n";
  }
  return out;
}

class SharedKernelSolutions : public ::testing::TestWithParam<SharedKernelFamily> {};

TEST_P(SharedKernelSolutions, AreOneKernelInstantiatedForEachTask) {
  const SharedKernelFamily& family = GetParam();
  auto files = load_solutions();
  ASSERT_TRUE(files.has_value()) << files.error().message;
  auto suite = task::load_suite(repo_root() / "tasks");
  ASSERT_TRUE(suite.has_value()) << suite.error().message;
  std::optional<std::string> common;
  int count = 0;
  for (const auto& file : *files) {
    if (file.path.parent_path().filename() != "hopper") continue;
    if (file.path.stem().string().rfind(family.file_prefix, 0) != 0) continue;
    ++count;
    EXPECT_EQ(file.header.task, file.path.stem().string()) << file.path;
    const task::Task* t = task::find_task(*suite, file.header.task);
    ASSERT_NE(t, nullptr) << file.header.task;
    const task::Axis* head_dim = t->find_axis("D");
    ASSERT_TRUE(head_dim != nullptr && head_dim->value.has_value()) << file.header.task;
    const auto causal = t->parameters.find("causal");
    const bool is_causal = causal != t->parameters.end() && causal->second != 0;
    const std::string instantiation = family.instantiation + "</*head_dim=*/" +
                                      std::to_string(*head_dim->value) + ", /*causal=*/" +
                                      (is_causal ? "true" : "false") + ">(";
    EXPECT_THAT(file.text, HasSubstr(instantiation)) << file.path;
    EXPECT_THAT(file.text, HasSubstr("// ptx-begin: " + family.block + "\n")) << file.path;
    EXPECT_TRUE(std::filesystem::exists(block_source(family.block))) << family.block;
    const std::string rest = without_task_lines(file.text, family.instantiation);
    if (!common) common = rest;
    EXPECT_EQ(rest, *common) << file.path << " differs from the other " << family.file_prefix
                             << "* solutions beyond its header and instantiation";
  }
  EXPECT_EQ(count, family.files);
}

INSTANTIATE_TEST_SUITE_P(
    Attention, SharedKernelSolutions,
    ::testing::Values(SharedKernelFamily{"mha_fwd_lse_", "mha_fwd", "attn::forward", 8},
                      SharedKernelFamily{"mha_bwd_", "mha_bwd", "mha_bwd::backward", 6}),
    [](const ::testing::TestParamInfo<SharedKernelFamily>& param_info) {
      return param_info.param.block;
    });

}  // namespace
}  // namespace ptxbench::solutions_test
