// The compile sandbox with the real nvcc: a candidate that includes or embeds a host file, or
// floods the preprocessor, fails to compile, quotes nothing of the host, and does not stop the
// next, honest candidate from compiling.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/sandbox/sandboxed_runner.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::sandbox {
namespace {

namespace fs = std::filesystem;

std::string read_data(const std::string& name) {
  std::ifstream in(fs::path(PTXBENCH_TEST_DATA_DIR) / name);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

class CompileSandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    auto nvcc = compile::find_nvcc();
    if (!nvcc) GTEST_SKIP() << "nvcc is not installed: " << nvcc.error().message;
    auto sandboxed = std::make_shared<SandboxedProcessRunner>(
        std::make_shared<util::SystemProcessRunner>(), compiler_policy(Mode::kStrict, 4ull << 30));
    if (!complete(sandboxed->support().usable))
      GTEST_SKIP() << "this machine cannot sandbox fully: " << sandboxed->description();
    options_ = {.nvcc = *nvcc, .timeout = std::chrono::seconds(90), .sandbox = sandboxed};
  }

  compile::CompileOutput compile(const std::string& file) {
    return compile::compile_candidate(plain_, options_, arch::Arch::kHopper, read_data(file),
                                      dir_.path() / file);
  }

  // A line that only the real /etc/passwd has (shadow is root-only; passwd is the same attack
  // and readable everywhere, so the check can fail).
  static void expect_no_host_file(const std::string& log) {
    EXPECT_EQ(log.find("root:x:0:0"), std::string::npos) << log;
    EXPECT_EQ(log.find("/usr/local/cuda"), std::string::npos) << log;
  }

  util::SystemProcessRunner plain_;
  compile::CompileOptions options_;
  util::TempDir dir_{"ptxbench-compile-sandbox-"};
};

TEST_F(CompileSandbox, IncludingAHostFileFails) {
  auto out = compile("include_host_file.cu");
  EXPECT_FALSE(out.succeeded) << out.log;
  expect_no_host_file(out.log);
}

TEST_F(CompileSandbox, EmbeddingAHostFileFails) {
  auto out = compile("incbin_host_file.cu");
  EXPECT_FALSE(out.succeeded) << out.log;
  expect_no_host_file(out.log);
}

TEST_F(CompileSandbox, APreprocessorBombIsStopped) {
  options_.timeout = std::chrono::seconds(20);  // stopped by whichever limit comes first
  const auto start = std::chrono::steady_clock::now();
  auto out = compile("preprocessor_bomb.cu");
  options_.timeout = std::chrono::seconds(90);
  EXPECT_FALSE(out.succeeded);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(40));
  auto honest = compile("honest.cu");
  EXPECT_TRUE(honest.succeeded) << honest.failure << "\n" << honest.log;
}

TEST_F(CompileSandbox, AnHonestCandidateCompilesAndTheFolderIsBackToItsOwner) {
  auto out = compile("honest.cu");
  ASSERT_TRUE(out.succeeded) << out.failure << "\n" << out.log;
  EXPECT_TRUE(fs::exists(out.shared_object));
  struct stat st {};
  ASSERT_EQ(::stat(out.shared_object.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, ::geteuid());
}

}  // namespace
}  // namespace ptxbench::sandbox
