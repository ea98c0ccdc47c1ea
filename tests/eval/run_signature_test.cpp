// The exported run()'s parameters, from the source's export macro and the object's symbols.
#include "ptxbench/eval/static/run_signature.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::eval {
namespace {
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kThreeViews = "_Z3runN3tvm3ffi10TensorViewES1_S1_";

TEST(RunSignature, TheExportMacroNamesTheFunction) {
  EXPECT_EQ(exported_function_name("TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);"), "run");
  EXPECT_EQ(exported_function_name("TVM_FFI_DLL_EXPORT_TYPED_FUNC ( run , ns::launch );"),
            "ns::launch");
  EXPECT_EQ(exported_function_name("// TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, old);\n"
                                   "TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, launch);"),
            "launch");
  EXPECT_EQ(exported_function_name("TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, [](int x) {});"), "");
  EXPECT_EQ(exported_function_name("TVM_FFI_DLL_EXPORT_TYPED_FUNC(other, f);"), "");
  EXPECT_EQ(exported_function_name("no macro"), "");
}

TEST(RunSignature, ParametersComeFromTheDemangledName) {
  EXPECT_THAT(*demangled_parameters("run(tvm::ffi::TensorView, std::map<int, int>, int)"),
              ElementsAre("tvm::ffi::TensorView", "std::map<int, int>", "int"));
  EXPECT_THAT(*demangled_parameters("(anonymous namespace)::run(float*)"), ElementsAre("float*"));
  EXPECT_TRUE(demangled_parameters("run()")->empty());
  EXPECT_EQ(demangled_parameters("run"), std::nullopt);
}

TEST(RunSignature, TheTypedSymbolOfTheExportedFunctionIsRead) {
  const std::string source = "TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);";
  auto signature =
      read_run_signature(source, {"__tvm_ffi_run", std::string(kThreeViews), "_Z4gemmv"});
  EXPECT_TRUE(signature.exported);
  ASSERT_TRUE(signature.parameters.has_value());
  EXPECT_EQ(signature.parameters->size(), 3u);
  // Overloads, or no typed symbol (a static function inlined away): unknown, not a mismatch.
  EXPECT_FALSE(read_run_signature(source, {"__tvm_ffi_run", std::string(kThreeViews), "_Z3runv"})
                   .parameters.has_value());
  EXPECT_FALSE(read_run_signature(source, {"__tvm_ffi_run"}).parameters.has_value());
  EXPECT_FALSE(read_run_signature(source, {std::string(kThreeViews)}).exported);
}

TEST(RunSignature, AMismatchSaysWhatTheTaskPasses) {
  auto gemm = task::load_task_file(task::default_tasks_dir() / "gemm" / "gemm_n7168_k5120.json");
  auto attention =
      task::load_task_file(task::default_tasks_dir() / "mha_fwd" / "mha_fwd_lse_d128.json");
  ASSERT_TRUE(gemm && attention);
  const auto three = read_run_signature("TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);",
                                        {"__tvm_ffi_run", std::string(kThreeViews)});
  EXPECT_EQ(signature_mismatch(*gemm, three), std::nullopt);
  EXPECT_THAT(signature_mismatch(*attention, three).value_or(""), HasSubstr("takes 3 parameters"));
  RunSignature with_int{.exported = true,
                        .function = "run",
                        .parameters = std::vector<std::string>{"tvm::ffi::TensorView", "int",
                                                               "tvm::ffi::TensorView"}};
  EXPECT_THAT(signature_mismatch(*gemm, with_int).value_or(""),
              HasSubstr("takes int as parameter 2 (B)"));
  EXPECT_EQ(signature_mismatch(*attention, RunSignature{.exported = true}), std::nullopt);
  EXPECT_THAT(signature_mismatch(*attention, RunSignature{}).value_or(""),
              HasSubstr("exports no run()"));
}

}  // namespace
}  // namespace ptxbench::eval
