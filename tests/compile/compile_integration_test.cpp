// Real nvcc + ptxas for sm_90a on the test candidates in data/: what the binary imports decides
// the lint, ptxas -v gives resources, a syntax error gives nvcc's message. Each candidate is
// compiled once for the whole suite.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/compile/elf_imports.hpp"
#include "ptxbench/compile/lint.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::compile {
namespace {
using ::testing::HasSubstr;

// ctest runs every test in its own process, so each candidate is compiled on first use (once per
// process) rather than all of them in a suite set-up.
class RealNvcc : public ::testing::Test {
 protected:
  void SetUp() override {
    nvcc_ = find_nvcc();
    if (!nvcc_) GTEST_SKIP() << "nvcc is not installed: " << nvcc_.error().message;
  }
  const CompileOutput& output(const std::string& name) {
    static std::map<std::string, CompileOutput> outputs;
    static util::TempDir dir("ptxbench-compile-test-");
    auto it = outputs.find(name);
    if (it != outputs.end()) return it->second;
    auto source = util::read_file(std::string(PTXBENCH_TEST_DATA_DIR) + "/" + name + ".cu");
    if (!source) throw std::runtime_error(source.error().message);
    util::SystemProcessRunner runner;
    auto out = compile_candidate(runner, {.nvcc = *nvcc_}, arch::Arch::kHopper, *source,
                                 dir.path() / name);
    return outputs.emplace(name, std::move(out)).first->second;
  }

 private:
  util::Expected<std::filesystem::path> nvcc_ = util::make_error("not looked up");
};

TEST_F(RealNvcc, CublasCandidateCompilesButItsImportsAreRefused) {
  const auto& out = output("calls_cublas");
  ASSERT_TRUE(out.succeeded) << out.log;
  // The include is hidden behind a macro: only the object can tell.
  EXPECT_EQ(check_source_includes(
                util::read_file(std::string(PTXBENCH_TEST_DATA_DIR) + "/calls_cublas.cu").value()),
            std::nullopt);
  auto imports = read_elf_imports(out.shared_object);
  ASSERT_TRUE(imports.has_value()) << imports.error().message;
  EXPECT_THAT(imports->undefined_symbols, ::testing::Contains("cublasCreate_v2"));
  auto refused = check_imports(*imports);
  ASSERT_TRUE(refused.has_value());
  EXPECT_THAT(*refused, HasSubstr("imports cublasCreate_v2 (cuBLAS)"));
}

// What the preprocessor resolved decides the include check: the macro include is caught before
// the object is even read, and the CUDA headers of a plain kernel are not mistaken for libraries.
TEST_F(RealNvcc, ResolvedIncludesSeeThroughMacros) {
  ASSERT_TRUE(output("calls_cublas").succeeded);
  ASSERT_TRUE(output("ampere_mma_sync").succeeded);
  const auto work = output("calls_cublas").shared_object.parent_path();
  auto includes = resolved_includes(work);
  ASSERT_TRUE(includes.has_value()) << includes.error().message;
  EXPECT_THAT(*includes, ::testing::Contains(::testing::EndsWith("/cublas_v2.h")));
  auto refused = check_resolved_includes(*includes);
  ASSERT_TRUE(refused.has_value());
  EXPECT_THAT(*refused, HasSubstr("cublas_v2.h (cuBLAS)"));

  const auto plain = output("ampere_mma_sync").shared_object.parent_path();
  auto plain_includes = resolved_includes(plain);
  ASSERT_TRUE(plain_includes.has_value()) << plain_includes.error().message;
  EXPECT_THAT(*plain_includes, ::testing::Contains(::testing::EndsWith("/cuda_runtime.h")));
  EXPECT_EQ(check_resolved_includes(*plain_includes), std::nullopt);
}

TEST_F(RealNvcc, DlopenCandidateIsRefused) {
  const auto& out = output("calls_dlopen");
  ASSERT_TRUE(out.succeeded) << out.log;
  auto imports = read_elf_imports(out.shared_object);
  ASSERT_TRUE(imports.has_value()) << imports.error().message;
  auto refused = check_imports(*imports);
  ASSERT_TRUE(refused.has_value());
  EXPECT_THAT(*refused, HasSubstr("imports dlopen (dynamic loading)"));
}

TEST_F(RealNvcc, PlainKernelLinksOnlyAllowedLibrariesAndReportsResources) {
  const auto& out = output("ampere_mma_sync");
  ASSERT_TRUE(out.succeeded) << out.log;
  auto imports = read_elf_imports(out.shared_object);
  ASSERT_TRUE(imports.has_value()) << imports.error().message;
  EXPECT_THAT(imports->needed, ::testing::Contains(::testing::StartsWith("libcudart.so")));
  EXPECT_THAT(imports->needed, ::testing::Contains("libtvm_ffi.so"));
  EXPECT_EQ(check_imports(*imports), std::nullopt);
  ASSERT_EQ(out.kernels.size(), 1u);
  EXPECT_THAT(out.kernels[0].name, HasSubstr("gemm_mma_sync"));
  EXPECT_GT(out.kernels[0].registers, 0);
  EXPECT_EQ(out.kernels[0].spill_store_bytes, 0);
  EXPECT_THAT(out.log, HasSubstr("ptxas info"));
}

TEST_F(RealNvcc, SyntaxErrorGivesTheCompilersMessage) {
  const auto& out = output("syntax_error");
  EXPECT_FALSE(out.succeeded);
  EXPECT_THAT(out.failure, HasSubstr("nvcc exit"));
  EXPECT_THAT(out.log, HasSubstr("candidate.cu(8): error: expected a \";\""));
  EXPECT_TRUE(out.shared_object.empty());
}

}  // namespace
}  // namespace ptxbench::compile
