#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/config.hpp"
#include "ptxbench/prompt/abi_example.hpp"
#include "ptxbench/prompt/harness_facts.hpp"
#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/prompt/system_prompt.hpp"
#include "ptxbench/prompt/task_prompt.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/task/task_render.hpp"
#include "ptxbench/task/unseen_workloads.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"

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
    EXPECT_TRUE(contains(text, task::to_string(task.baseline)));
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

// "S=4095" as a whole size: not the start of "S=40950".
bool mentions_size(const std::string& text, const std::string& size) {
  for (auto at = text.find(size); at != std::string::npos; at = text.find(size, at + 1)) {
    const auto end = at + size.size();
    if (end == text.size() || !std::isdigit(static_cast<unsigned char>(text[end]))) return true;
  }
  return false;
}

// Every task's whole prompt (system and task message, every arch and context level) shows none
// of its unseen workloads, and says that unlisted sizes are checked.
TEST(Prompt, NoTaskPromptShowsAnUnseenWorkload) {
  const auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite) << suite.error().message;
  const bool with_context = std::filesystem::exists(default_context_dir());
  for (const auto& task : *suite) {
    const auto unseen = task::unseen_workloads(task);
    EXPECT_GE(unseen.size(), 3u) << task.name;
    for (arch::Arch arch : arch::all()) {
      std::vector<std::string> texts{build_task_prompt(task, arch)};
      if (with_context) {
        for (ContextLevel level : all_context_levels()) {
          auto prompt = build_prompt(task, arch, level, default_context_dir());
          ASSERT_TRUE(prompt) << prompt.error().message;
          texts.push_back(prompt->system + "\n" + prompt->task);
        }
      }
      for (const auto& text : texts) {
        EXPECT_TRUE(contains(text, "Correctness is also checked on sizes not listed here"))
            << task.name;
        for (const auto& w : unseen) {
          EXPECT_FALSE(contains(text, w.name)) << task.name << " shows " << w.name;
          for (const auto& [axis, value] : w.axes) {
            const bool shown =
                std::any_of(task.workloads.begin(), task.workloads.end(),
                            [&](const task::Workload& s) { return s.axes.at(axis) == value; });
            if (shown) continue;  // the headline's value of another axis
            EXPECT_FALSE(mentions_size(text, fmt::format("{}={}", axis, value)))
                << task.name << " shows " << axis << "=" << value;
          }
        }
      }
    }
  }
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

const task::Task& suite_task(std::string_view name) {
  static const auto suite = task::load_suite(task::default_tasks_dir());
  EXPECT_TRUE(suite) << suite.error().message;
  const task::Task* task = task::find_task(*suite, name);
  EXPECT_NE(task, nullptr) << name;
  return *task;
}

// At every arch and context level the system prompt states the toolkit, the exact compile
// command and libraries, the tensor calls and layout, and the workspace rule.
TEST(SystemPrompt, StatesTheToolchainCommandTensorsAndWorkspaceAtEveryLevel) {
  for (arch::Arch arch : arch::all()) {
    for (ContextLevel level : all_context_levels()) {
      const std::string text = build_system_prompt(arch, level, "### doc");
      EXPECT_TRUE(contains(text, compile_command_text(arch))) << to_string(level);
      EXPECT_TRUE(contains(text, fmt::format("nvcc {}", config::kCudaToolkitVersion)));
      for (const char* part :
           {"-lcuda", "-ltvm_ffi", "x.size(i)", "x.data_ptr()", "Strides are not passed",
            "compact row-major", "Workspace", "part of its time"})
        EXPECT_TRUE(contains(text, part)) << part;
    }
  }
}

// The command in the prompt is the compile stage's own, with no path of this machine in it.
TEST(SystemPrompt, TheCompileCommandIsTheCompileStages) {
  for (arch::Arch arch : arch::all()) {
    const std::string text = compile_command_text(arch);
    for (const auto& argument :
         compile::nvcc_command("nvcc", arch, compile::kSourceFileName, compile::kObjectFileName)) {
      if (argument.find(config::kTvmFfiIncludeDir) != std::string::npos ||
          argument.find(config::kTvmFfiLibraryDir) != std::string::npos)
        continue;
      EXPECT_TRUE(contains(text, argument)) << argument;
    }
    EXPECT_TRUE(contains(text, "-I<tvm-ffi>/include"));
    EXPECT_TRUE(contains(text, "-L<tvm-ffi>/lib"));
    EXPECT_FALSE(contains(text, config::kTvmFfiLibraryDir));
  }
}

TEST(SystemPrompt, TheToolkitVersionIsTheInstalledNvccs) {
  auto nvcc = compile::find_nvcc();
  if (!nvcc) GTEST_SKIP() << "nvcc not installed: " << nvcc.error().message;
  ASSERT_FALSE(config::kCudaToolkitVersion.empty());
  util::SystemProcessRunner runner;
  EXPECT_TRUE(contains(compile::nvcc_version(runner, *nvcc),
                       fmt::format("release {},", config::kCudaToolkitVersion)));
}

TEST(TaskPrompt, StatesHowInputsAreDrawn) {
  const std::string gemm = build_task_prompt(gemm_task(), arch::Arch::kHopper);
  EXPECT_TRUE(contains(gemm, "## Inputs"));
  EXPECT_TRUE(contains(gemm, "`normal` workloads: every element N(0, 1)"));
  EXPECT_FALSE(contains(gemm, "LSE"));
  const std::string fwd = build_task_prompt(suite_task("mha_fwd_lse_d128"), arch::Arch::kHopper);
  EXPECT_TRUE(contains(fwd, "`spiky` workloads: every element N(0, 1), and 1 element in 1000"));
  const std::string bwd = build_task_prompt(suite_task("mha_bwd_d128"), arch::Arch::kHopper);
  EXPECT_TRUE(contains(bwd, "O and LSE are not drawn"));
}

TEST(TaskPrompt, DefinesLseAsTheNaturalLogOfTheScaledScores) {
  for (const char* name : {"mha_fwd_lse_d128", "mha_fwd_lse_d128_causal", "mha_bwd_d128"}) {
    const std::string text = build_task_prompt(suite_task(name), arch::Arch::kHopper);
    EXPECT_TRUE(contains(text, "natural log of the *scaled* scores")) << name;
    EXPECT_TRUE(contains(text, "LSE[b,h,i] = ln Σ_j exp(scale · Σ_d Q[b,h,i,d] · K[b,h,j,d])"))
        << name;
  }
}

// The Hopper guide quotes the baselines at the tasks' own shape and defines LSE as they do.
TEST(ContextGuide, AgreesWithTheTasks) {
  auto guide = util::read_file(default_context_dir() / "hopper" / "guide.md");
  ASSERT_TRUE(guide) << guide.error().message;
  const task::Task& fwd = suite_task("mha_fwd_lse_d128");
  std::map<std::string, std::int64_t> constants;
  for (const auto& axis : fwd.axes)
    if (axis.value) constants[axis.name] = *axis.value;
  const std::string shape = fmt::format("B{} H{} S{} D{}", constants["B"], constants["H"],
                                        fwd.headline().axes.at("S"), constants["D"]);
  EXPECT_TRUE(contains(*guide, "cuDNN attention at the tasks' headline shape " + shape)) << shape;
  EXPECT_FALSE(contains(*guide, "H32"));
  EXPECT_TRUE(contains(*guide, "`LSE[i] = ln Σ_j exp(S[i,j])`"));
  EXPECT_TRUE(contains(*guide, "`S = scale · Q·Kᵀ`"));
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
