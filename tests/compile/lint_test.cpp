// The library-use lint: #include pre-check and the authoritative check of the object's imports.
#include "ptxbench/compile/lint.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::compile {
namespace {
using ::testing::HasSubstr;

TEST(LintSource, RefusesLibraryHeaders) {
  auto cublas = check_source_includes("#include <cuda.h>\n#include <cublas_v2.h>\nint x;\n");
  ASSERT_TRUE(cublas.has_value());
  EXPECT_THAT(*cublas, HasSubstr("includes <cublas_v2.h> (cuBLAS)"));
  EXPECT_TRUE(check_source_includes("  #  include \"cudnn.h\"").has_value());
  EXPECT_TRUE(check_source_includes("#include <cutlass/gemm/device/gemm.h>").has_value());
  EXPECT_TRUE(check_source_includes("#include <cute/tensor.hpp>").has_value());
  EXPECT_TRUE(check_source_includes("#include <torch/extension.h>").has_value());
  EXPECT_TRUE(check_source_includes("#include <cublasLt.h>").has_value());
}

TEST(LintSource, AllowsTheCandidateAbiAndCudaHeaders) {
  EXPECT_EQ(check_source_includes(
                "#include <tvm/ffi/function.h>\n#include <tvm/ffi/container/tensor.h>\n"
                "#include <tvm/ffi/extra/c_env_api.h>\n#include <cuda.h>\n"
                "#include <cuda_bf16.h>\n#include <cuda/barrier>\n#include <cstdint>\n"),
            std::nullopt);
  // Mentions outside #include lines are not library use.
  EXPECT_EQ(check_source_includes("// faster than cublas\nconst char* s = \"cudnn\";\n"),
            std::nullopt);
}

TEST(LintSource, AVeryLongLineIsScannedWithoutRecursion) {
  const std::string line = "#include <" + std::string(200000, 'a') + ">\n";
  EXPECT_EQ(check_source_includes(line), std::nullopt);
  EXPECT_TRUE(check_source_includes("#include <cublas" + std::string(200000, 'a') + ">"));
}

TEST(LintResolved, ParsesTheDependencyRule) {
  const auto paths = parse_dependency_rule(
      "candidate.o : candidate.cu \\\n    /usr/include/stdc-predef.h \\\n"
      "    /opt/my\\ dir/cute/tensor.hpp\n");
  EXPECT_EQ(paths, (std::vector<std::string>{"candidate.cu", "/usr/include/stdc-predef.h",
                                             "/opt/my dir/cute/tensor.hpp"}));
}

TEST(LintResolved, JudgesFileNamesAndLibraryDirectories) {
  EXPECT_EQ(check_resolved_includes({"/usr/local/cuda/include/cuda_runtime.h",
                                     "/usr/local/cuda/include/cuda/std/cstdint",
                                     "/usr/include/c++/13/vector"}),
            std::nullopt);
  auto cublas = check_resolved_includes({"/usr/local/cuda/include/cublas_v2.h"});
  ASSERT_TRUE(cublas.has_value());
  EXPECT_THAT(*cublas, HasSubstr("includes /usr/local/cuda/include/cublas_v2.h (cuBLAS)"));
  auto cutlass = check_resolved_includes({"/opt/cutlass/include/cutlass/gemm/gemm.h"});
  ASSERT_TRUE(cutlass.has_value());
  EXPECT_THAT(*cutlass, HasSubstr("(CUTLASS)"));
  EXPECT_TRUE(check_resolved_includes({"/site-packages/torch/include/ATen/ATen.h"}));
}

TEST(LintImports, AllowsWhatTheFixedCommandLinks) {
  ElfImports imports{
      .needed = {"libtvm_ffi.so", "libcuda.so.1", "libcudart.so.13", "libstdc++.so.6", "libm.so.6",
                 "libgcc_s.so.1", "libc.so.6", "ld-linux-x86-64.so.2"},
      .undefined_symbols = {"TVMFFIEnvGetStream", "__cudaLaunchKernel@libcudart.so.13",
                            "cuTensorMapEncodeTiled", "cudaGetDriverEntryPoint", "malloc",
                            "_ZdlPvm", "systemd_like_name", "forkable"}};
  EXPECT_EQ(check_imports(imports), std::nullopt);
}

struct ImportCase {
  std::string symbol;
  std::string reason;
};

class LintRefusesImport : public ::testing::TestWithParam<ImportCase> {};

TEST_P(LintRefusesImport, WithTheReason) {
  auto refused =
      check_imports(ElfImports{.needed = {"libc.so.6"}, .undefined_symbols = {GetParam().symbol}});
  ASSERT_TRUE(refused.has_value()) << GetParam().symbol;
  EXPECT_THAT(*refused, HasSubstr(GetParam().reason));
}

INSTANTIATE_TEST_SUITE_P(
    Symbols, LintRefusesImport,
    ::testing::Values(
        ImportCase{"cublasCreate_v2", "cuBLAS"}, ImportCase{"cublasLtMatmul", "cuBLAS"},
        ImportCase{"cudnnCreate", "cuDNN"}, ImportCase{"dlopen@GLIBC_2.34", "dynamic loading"},
        ImportCase{"dlsym", "dynamic loading"}, ImportCase{"dlmopen", "dynamic loading"},
        ImportCase{"cuModuleLoadData", "loads GPU code"},
        ImportCase{"cuLibraryLoadFromFile", "loads GPU code"},
        ImportCase{"nvrtcCompileProgram", "run-time compilation"},
        ImportCase{"execvp", "runs other programs"}, ImportCase{"system", "runs other programs"},
        ImportCase{"_ZN2at6matmulERKNS_6TensorES2_", "PyTorch"}));

// The include lint reads the rule the compile wrote (-MD -MF candidate.d), not a second
// preprocessor run; without that file it is an error, never an empty (clean) list.
TEST(LintResolvedIncludes, ReadsTheCompilesDependencyRule) {
  util::TempDir dir;
  auto missing = resolved_includes(dir.path());
  ASSERT_FALSE(missing.has_value());
  EXPECT_THAT(missing.error().message, HasSubstr("candidate.d"));
  util::write_file_atomic(dir.path() / std::string(kDependencyFileName),
                          "candidate.so : candidate.cu \\\n  /usr/include/stdio.h \\\n"
                          "  /opt/my\\ libs/cublas_v2.h\n");
  auto paths = resolved_includes(dir.path());
  ASSERT_TRUE(paths.has_value()) << paths.error().message;
  EXPECT_THAT(*paths, ::testing::ElementsAre("/usr/include/stdio.h", "/opt/my libs/cublas_v2.h"));
}

TEST(LintImports, RefusesLibrariesOutsideTheAllowlist) {
  auto refused = check_imports(ElfImports{.needed = {"libtvm_ffi.so", "libcublas.so.13"}});
  ASSERT_TRUE(refused.has_value());
  EXPECT_THAT(*refused, HasSubstr("links libcublas.so.13"));
}

TEST(LintImports, LongListsAreShortened) {
  ElfImports imports;
  for (int i = 0; i < 20; ++i)
    imports.undefined_symbols.push_back("cublasFunction" + std::to_string(i));
  auto refused = check_imports(imports);
  ASSERT_TRUE(refused.has_value());
  EXPECT_THAT(*refused, HasSubstr("and 14 more"));
}

}  // namespace
}  // namespace ptxbench::compile
