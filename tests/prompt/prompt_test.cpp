#include <gtest/gtest.h>

#include "ptxbench/prompt/abi_example.hpp"
#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/prompt/system_prompt.hpp"
#include "ptxbench/prompt/task_prompt.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/task/task_render.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::prompt {
namespace {

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

const task::Task& gemm_task() {
  static const auto suite = task::load_suite(task::default_tasks_dir());
  EXPECT_TRUE(suite) << suite.error().message;
  const task::Task* task = task::find_task(*suite, "gemm_n7168_k5120");
  EXPECT_NE(task, nullptr);
  return *task;
}

TEST(ContextLevel, NamesRoundTripAndLevelsNest) {
  for (ContextLevel level : all_context_levels()) {
    EXPECT_EQ(parse_context_level(to_string(level)), level);
  }
  EXPECT_FALSE(parse_context_level("full").has_value());
  EXPECT_TRUE(documents_of(ContextLevel::kNone).empty());
  EXPECT_EQ(documents_of(ContextLevel::kIsa), (std::vector<std::string>{"isa"}));
  EXPECT_EQ(documents_of(ContextLevel::kGuide), (std::vector<std::string>{"isa", "guide"}));
  EXPECT_EQ(documents_of(ContextLevel::kExamples),
            (std::vector<std::string>{"isa", "guide", "examples"}));
}

TEST(ContextLevel, LoadsTheLevelsDocumentsInOrder) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "hopper" / "isa.md", "### ISA DOC\n");
  util::write_file_atomic(dir.path() / "hopper" / "guide.md", "### GUIDE DOC\n");
  auto none = load_context(dir.path(), arch::Arch::kHopper, ContextLevel::kNone);
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, "");
  auto guide = load_context(dir.path(), arch::Arch::kHopper, ContextLevel::kGuide);
  ASSERT_TRUE(guide) << guide.error().message;
  EXPECT_EQ(*guide, "### ISA DOC\n\n### GUIDE DOC");
  auto examples = load_context(dir.path(), arch::Arch::kHopper, ContextLevel::kExamples);
  ASSERT_FALSE(examples);
  EXPECT_TRUE(contains(examples.error().message, "hopper/examples.md"));
  EXPECT_FALSE(load_context(dir.path(), arch::Arch::kBlackwell, ContextLevel::kIsa));
}

TEST(SystemPrompt, CarriesRoleFormatAbiAndTarget) {
  for (arch::Arch arch : arch::all()) {
    std::string text = build_system_prompt(arch, ContextLevel::kNone, "");
    EXPECT_TRUE(contains(text, arch::info(arch).sm));
    EXPECT_TRUE(contains(text, arch::gencode_flag(arch)));
    EXPECT_TRUE(contains(text, "```cuda"));
    EXPECT_TRUE(contains(text, abi_example()));
    EXPECT_TRUE(contains(text, "TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run)"));
    EXPECT_TRUE(contains(text, "TVMFFIEnvGetStream"));
    EXPECT_FALSE(contains(text, "Reference for")) << "level none carries no documents";
  }
}

TEST(SystemPrompt, CarriesTheContextDocuments) {
  std::string text =
      build_system_prompt(arch::Arch::kBlackwell, ContextLevel::kIsa, "### tcgen05 notes");
  EXPECT_TRUE(contains(text, "Reference for blackwell (context level `isa`)"));
  EXPECT_TRUE(contains(text, "### tcgen05 notes"));
  EXPECT_LT(text.find(abi_example()), text.find("### tcgen05 notes"));
}

TEST(TaskPrompt, HoldsTheTaskHeadlineFamiliesAndJudging) {
  const task::Task& task = gemm_task();
  for (arch::Arch arch : arch::all()) {
    std::string text = build_task_prompt(task, arch);
    std::string rendered = task::render_for_model(task, arch);
    while (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
    EXPECT_TRUE(contains(text, rendered)) << "the task as `tasks show` renders it";
    EXPECT_TRUE(contains(text, task.headline().name));
    EXPECT_TRUE(contains(text, task.baseline));
    EXPECT_TRUE(contains(text, arch::info(arch).sm));
    ASSERT_TRUE(task.requested.contains(arch));
    for (const auto& family : task.requested.at(arch)) {
      EXPECT_TRUE(contains(text, family)) << family;
    }
    EXPECT_TRUE(contains(text, "speedup = baseline time / your time"));
  }
}

TEST(TaskPrompt, DescribesTheTasksCorrectnessRule) {
  task::Task task = gemm_task();
  std::string text = build_task_prompt(task, arch::Arch::kHopper);
  EXPECT_TRUE(contains(text, "compared\n   with a high-precision reference")) << text;
  EXPECT_TRUE(contains(text, "at most twice the library's"));
  task.tolerance.rule = task::CorrectnessRule::kMatchesLibrary;
  text = build_task_prompt(task, arch::Arch::kHopper);
  EXPECT_TRUE(contains(text, "An element fails when |out - ref| > 0.01")) << text;
  EXPECT_FALSE(contains(text, "high-precision"));
}

TEST(Prompt, BuildsFromTheBuiltInContextDocuments) {
  if (!std::filesystem::exists(default_context_dir())) {
    GTEST_SKIP() << "no context/ directory in this tree: " << default_context_dir();
  }
  for (arch::Arch arch : arch::all()) {
    std::size_t previous = 0;
    for (ContextLevel level : all_context_levels()) {
      auto prompt = build_prompt(gemm_task(), arch, level, default_context_dir());
      ASSERT_TRUE(prompt) << prompt.error().message;
      EXPECT_GT(prompt->system.size(), previous) << "each level adds to the one below";
      previous = prompt->system.size();
    }
  }
}

TEST(TokenEstimate, IsBytesOverFourRoundedUp) {
  EXPECT_EQ(estimate_tokens(""), 0u);
  EXPECT_EQ(estimate_tokens("abc"), 1u);
  EXPECT_EQ(estimate_tokens("abcd"), 1u);
  EXPECT_EQ(estimate_tokens("abcde"), 2u);
  EXPECT_EQ(estimate_tokens(std::string(4000, 'x')), 1000u);
}

TEST(FamilyDescription, NamesThePtx) {
  EXPECT_TRUE(contains(describe_family("GMMA"), "wgmma.mma_async"));
  EXPECT_TRUE(contains(describe_family("UTCMMA"), "tcgen05.mma"));
  EXPECT_EQ(describe_family("NEWFAMILY"), "NEWFAMILY");
}

}  // namespace
}  // namespace ptxbench::prompt
