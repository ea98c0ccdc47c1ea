// Every solution compiles with the compile stage's own command for the arch its header names;
// ptxas reports its resources; the static SASS holds what the file claims: the task's requested
// families for the expert solutions and the simple kernels (and, for the Hopper experts,
// setmaxnreg, stmatrix, wgmma fences), the requested families for the attention controls too, no
// Hopper family at all for the Ampere-style control, and GMMA present (only never executed) in
// the control whose wgmma path is never taken. The Blackwell solutions are only ever checked here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string_view>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/sass/sass.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"
#include "solution_files.hpp"

namespace ptxbench::solutions_test {
namespace {

struct Built {
  SolutionFile file;
  compile::CompileOutput output;
  util::Expected<sass::SassModule> sass = util::make_error("not disassembled");
};

class CompiledSolutions : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto nvcc = compile::find_nvcc();
    if (!nvcc) return;  // every test skips with the reason
    auto files = load_solutions();
    if (!files) {
      load_error_ = new std::string(files.error().message);
      return;
    }
    dir_ = new util::TempDir("ptxbench-solutions-test-");
    built_ = new std::map<std::string, Built>;
    util::SystemProcessRunner runner;
    for (auto& file : *files) {
      const std::string name =
          file.path.parent_path().filename().string() + "/" + file.path.stem().string();
      const auto work = dir_->path() / (file.path.parent_path().filename().string() + "_" +
                                        file.path.stem().string());
      Built built{file, compile::compile_candidate(runner, {.nvcc = *nvcc}, file.header.arch,
                                                   file.text, work)};
      if (built.output.succeeded) {
        built.sass = sass::disassemble(runner, built.output.shared_object, file.header.arch, work);
      }
      built_->emplace(name, std::move(built));
    }
  }
  static void TearDownTestSuite() {
    delete built_;
    delete dir_;
    delete load_error_;
  }
  void SetUp() override {
    if (load_error_ != nullptr) FAIL() << *load_error_;
    if (built_ == nullptr) GTEST_SKIP() << "nvcc is not installed (PATH, /usr/local/cuda/bin)";
  }
  static const std::map<std::string, Built>& built() { return *built_; }
  static const Built& get(const std::string& name) { return built_->at(name); }

  // Static SASS, or skips the test when no disassembler is installed.
  static const sass::SassModule* sass_of(const Built& b) {
    if (!b.sass) return nullptr;
    return &*b.sass;
  }

 private:
  static inline util::TempDir* dir_ = nullptr;
  static inline std::map<std::string, Built>* built_ = nullptr;
  static inline std::string* load_error_ = nullptr;
};

TEST_F(CompiledSolutions, EverySolutionCompilesForItsArch) {
  ASSERT_GE(built().size(), 8u);
  for (const auto& [name, b] : built()) {
    EXPECT_TRUE(b.output.succeeded) << name << ": " << b.output.failure << "\n" << b.output.log;
    EXPECT_FALSE(b.output.kernels.empty()) << name << ": no ptxas -v resources in the log";
  }
}

TEST_F(CompiledSolutions, ExpertSolutionsNeitherSpillNorUseAStackFrame) {
  for (const auto& [name, b] : built()) {
    if (name.rfind("broken/", 0) == 0) continue;
    for (const auto& kernel : b.output.kernels) {
      EXPECT_EQ(kernel.spill_store_bytes, 0) << name << " " << kernel.name;
      EXPECT_EQ(kernel.spill_load_bytes, 0) << name << " " << kernel.name;
      EXPECT_EQ(kernel.stack_bytes, 0) << name << " " << kernel.name;
    }
  }
}

TEST_F(CompiledSolutions, ExpertSolutionsHoldEveryRequestedFamilyStatically) {
  auto suite = task::load_suite(repo_root() / "tasks");
  ASSERT_TRUE(suite.has_value()) << suite.error().message;
  for (const auto& [name, b] : built()) {
    if (b.file.header.expect != "PASSED" && b.file.header.expect != "NOT_RUN") continue;
    const auto* module = sass_of(b);
    if (module == nullptr) GTEST_SKIP() << "no disassembly: " << b.sass.error().message;
    const task::Task* t = task::find_task(*suite, b.file.header.task);
    ASSERT_NE(t, nullptr) << b.file.header.task;
    const auto requested = t->requested.find(b.file.header.arch);
    ASSERT_NE(requested, t->requested.end()) << name;
    for (const auto& family : requested->second) {
      EXPECT_GT(module->family_count(family), 0) << name << " lacks " << family;
    }
    if (b.file.header.arch == arch::Arch::kHopper) {
      // The tensor-core experts are warp-specialised with a stmatrix epilogue; the simple kernels
      // are one warpgroup that only needs the wgmma fences. Decode asks for no tensor cores.
      if (t->op_type == task::OpType::kMhaDecode) continue;
      const bool expert = name.rfind("hopper/", 0) == 0;
      for (const char* family : {"SETMAXNREG", "STSM", "WARPGROUP"}) {
        if (!expert && std::string_view(family) != "WARPGROUP") continue;
        EXPECT_GT(module->family_count(family), 0) << name << " lacks " << family;
      }
    } else {
      // The MMA in either form (UTCQMMA for FP8), its commit and tensor memory.
      EXPECT_GT(module->family_count("UTCMMA") + module->family_count("UTCQMMA"), 0)
          << name << " lacks a tcgen05.mma";
      for (const char* family : {"UTCBAR", "TMEM"}) {
        EXPECT_GT(module->family_count(family), 0) << name << " lacks " << family;
      }
    }
  }
}

// The attention controls keep every requested family of their base kernel in the SASS, so that
// their verdict can only come from the defect they plant, not from a missing instruction.
TEST_F(CompiledSolutions, AttentionControlsHoldTheRequestedFamiliesStatically) {
  auto suite = task::load_suite(repo_root() / "tasks");
  ASSERT_TRUE(suite.has_value()) << suite.error().message;
  int controls = 0;
  for (const auto& [name, b] : built()) {
    if (name.rfind("broken/mha_", 0) != 0) continue;
    ++controls;
    const auto* module = sass_of(b);
    if (module == nullptr) GTEST_SKIP() << "no disassembly: " << b.sass.error().message;
    const task::Task* t = task::find_task(*suite, b.file.header.task);
    ASSERT_NE(t, nullptr) << b.file.header.task;
    for (const auto& family : t->requested.at(b.file.header.arch)) {
      EXPECT_GT(module->family_count(family), 0) << name << " lacks " << family;
    }
  }
  EXPECT_GE(controls, 6);
}

// The FP8 task's proof: the expert issues the FP8 MMA (QGMMA) and no bf16 one; the control that
// casts to bf16 first has only HGMMA, so the static stage refuses it before any GPU work.
TEST_F(CompiledSolutions, Fp8ExpertIssuesQgmmaAndTheCastControlOnlyHgmma) {
  const auto* expert = sass_of(get("hopper/gemm_fp8_nt_warp_specialized"));
  const auto* cast = sass_of(get("broken/gemm_fp8_cast_to_bf16"));
  if (expert == nullptr || cast == nullptr) GTEST_SKIP() << "no disassembly";
  EXPECT_GT(expert->family_count("QGMMA"), 0);
  EXPECT_EQ(expert->family_count("GMMA"), 0);
  EXPECT_EQ(cast->family_count("QGMMA"), 0);
  EXPECT_GT(cast->family_count("GMMA"), 0);
  EXPECT_GT(cast->family_count("TMA"), 0);  // everything else the task asks for is there
}

// The decode controls keep the copy engine and its barriers, so only their defect can fail them.
TEST_F(CompiledSolutions, DecodeKernelsUseTheCopyEngine) {
  for (const char* name :
       {"hopper/mha_decode_split_kv", "broken/mha_decode_missing_length_mask",
        "broken/mha_decode_combine_without_lse_rescale", "broken/mha_decode_split_race"}) {
    const auto* module = sass_of(get(name));
    if (module == nullptr) GTEST_SKIP() << "no disassembly";
    EXPECT_GT(module->family_count("TMA"), 0) << name;
    EXPECT_GT(module->family_count("SYNCS"), 0) << name;
  }
}

TEST_F(CompiledSolutions, AmpereControlHasNoHopperFamily) {
  const auto& b = get("broken/gemm_ampere_mma_sync");
  const auto* module = sass_of(b);
  if (module == nullptr) GTEST_SKIP() << "no disassembly: " << b.sass.error().message;
  EXPECT_EQ(module->family_count("GMMA"), 0);
  EXPECT_EQ(module->family_count("TMA"), 0);
  bool has_hmma = false;
  for (const auto& kernel : module->kernels) {
    for (const auto& instruction : kernel.instructions) {
      has_hmma = has_hmma || instruction.opcode.rfind("HMMA", 0) == 0;
    }
  }
  EXPECT_TRUE(has_hmma) << "the control must still use the tensor cores (mma.sync)";
}

TEST_F(CompiledSolutions, NeverTakenControlHasGmmaStaticallySoOnlyExecutionCanCatchIt) {
  const auto& b = get("broken/gemm_wgmma_path_never_taken");
  const auto* module = sass_of(b);
  if (module == nullptr) GTEST_SKIP() << "no disassembly: " << b.sass.error().message;
  EXPECT_GT(module->family_count("GMMA"), 0);
  EXPECT_GT(module->family_count("TMA"), 0);
}

}  // namespace
}  // namespace ptxbench::solutions_test
