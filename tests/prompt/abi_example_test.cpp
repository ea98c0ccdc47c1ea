// The ABI example every system prompt shows must compile as a candidate, for both archs, and
// export the symbol the harness loads.
#include <gtest/gtest.h>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/prompt/abi_example.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::prompt {
namespace {

class AbiExample : public ::testing::TestWithParam<arch::Arch> {};

TEST_P(AbiExample, CompilesAndExportsRun) {
  auto nvcc = compile::find_nvcc();
  if (!nvcc) GTEST_SKIP() << "nvcc not available: " << nvcc.error().message;
  util::SystemProcessRunner runner;
  util::TempDir work;
  compile::CompileOutput output = compile::compile_candidate(
      runner, compile::CompileOptions{.nvcc = *nvcc}, GetParam(), abi_example(), work.path());
  ASSERT_TRUE(output.succeeded) << output.failure << "\n" << output.log;
  auto nm = util::find_in_path("nm");
  if (!nm) GTEST_SKIP() << "compiled; nm not available to check the export";
  util::ProcessResult symbols =
      runner.run({.argv = {nm->string(), "-D", "--defined-only", output.shared_object.string()}});
  ASSERT_TRUE(symbols.succeeded()) << symbols.describe_end();
  EXPECT_NE(symbols.stdout_text.find("__tvm_ffi_run"), std::string::npos) << symbols.stdout_text;
}

INSTANTIATE_TEST_SUITE_P(Archs, AbiExample,
                         ::testing::Values(arch::Arch::kHopper, arch::Arch::kBlackwell),
                         [](const auto& param_info) {
                           return std::string(arch::to_string(param_info.param));
                         });

}  // namespace
}  // namespace ptxbench::prompt
