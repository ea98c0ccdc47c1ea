// The nvcc invocation, with the compiler faked: fixed flags, bounded time, capped log.
#include "ptxbench/compile/compiler.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "ptxbench/config.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::compile {
namespace {
using ::testing::Contains;
using ::testing::HasSubstr;

class FakeRunner final : public util::ProcessRunner {
 public:
  explicit FakeRunner(std::function<util::ProcessResult(const util::ProcessSpec&)> answer)
      : answer_(std::move(answer)) {}
  util::ProcessResult run(const util::ProcessSpec& spec) override {
    specs.push_back(spec);
    return answer_(spec);
  }
  std::vector<util::ProcessSpec> specs;

 private:
  std::function<util::ProcessResult(const util::ProcessSpec&)> answer_;
};

TEST(NvccCommand, HasTheFixedFlagsForEachArch) {
  const auto hopper =
      nvcc_command("/usr/local/cuda/bin/nvcc", arch::Arch::kHopper, "in.cu", "out.so");
  EXPECT_EQ(hopper.front(), "/usr/local/cuda/bin/nvcc");
  EXPECT_THAT(hopper, Contains("-gencode=arch=compute_90a,code=sm_90a"));
  EXPECT_THAT(hopper, Contains("-shared"));
  EXPECT_THAT(hopper, Contains("-lineinfo"));
  EXPECT_THAT(hopper, Contains("-ltvm_ffi"));
  EXPECT_THAT(hopper, Contains("-I" + std::string(config::kTvmFfiIncludeDir)));
  // -cudart shared (static cudart imports dlopen itself) and -Xptxas -v (resources).
  const std::vector<std::string> cudart_shared{"-cudart", "shared"};
  EXPECT_NE(std::search(hopper.begin(), hopper.end(), cudart_shared.begin(), cudart_shared.end()),
            hopper.end());
  const std::vector<std::string> ptxas_verbose{"-Xptxas", "-v"};
  EXPECT_NE(std::search(hopper.begin(), hopper.end(), ptxas_verbose.begin(), ptxas_verbose.end()),
            hopper.end());
  EXPECT_EQ(hopper.back(), "in.cu");
  const auto blackwell = nvcc_command("nvcc", arch::Arch::kBlackwell, "in.cu", "out.so");
  EXPECT_THAT(blackwell, Contains("-gencode=arch=compute_100a,code=sm_100a"));
}

TEST(CompileCandidate, WritesTheSourceAndRunsInTheWorkDir) {
  util::TempDir dir;
  FakeRunner runner([](const util::ProcessSpec& spec) {
    util::write_file_atomic(spec.working_dir / "candidate.so", "object");
    return util::ProcessResult{.started = true,
                               .exit_code = 0,
                               .stderr_text =
                                   "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
                                   "ptxas info    : Used 32 registers, used 0 barriers\n"};
  });
  auto out = compile_candidate(runner, {.nvcc = "nvcc", .timeout = std::chrono::seconds(42)},
                               arch::Arch::kHopper, "__global__ void k() {}\n", dir.path());
  ASSERT_TRUE(out.succeeded) << out.failure;
  EXPECT_EQ(util::read_file(dir.path() / "candidate.cu").value(), "__global__ void k() {}\n");
  ASSERT_EQ(runner.specs.size(), 1u);
  EXPECT_EQ(runner.specs[0].working_dir, dir.path());
  EXPECT_EQ(runner.specs[0].timeout, std::chrono::seconds(42));
  EXPECT_EQ(runner.specs[0].argv, out.command);
  // The include lint's dependency rule comes from this same run: no second preprocessor pass.
  const std::vector<std::string> dependency_rule{"-MD", "-MF", "candidate.d", "-o"};
  EXPECT_NE(std::search(out.command.begin(), out.command.end(), dependency_rule.begin(),
                        dependency_rule.end()),
            out.command.end());
  EXPECT_EQ(out.shared_object, dir.path() / "candidate.so");
  ASSERT_EQ(out.kernels.size(), 1u);
  EXPECT_EQ(out.kernels[0].registers, 32);
}

TEST(CompileCandidate, TimeoutIsAFailureThatSaysSo) {
  util::TempDir dir;
  FakeRunner runner([](const util::ProcessSpec&) {
    return util::ProcessResult{.started = true, .term_signal = 9, .timed_out = true};
  });
  auto out = compile_candidate(runner, {.nvcc = "nvcc", .timeout = std::chrono::seconds(5)},
                               arch::Arch::kHopper, "int x;", dir.path());
  EXPECT_FALSE(out.succeeded);
  EXPECT_EQ(out.failure, "nvcc timed out after 5 s");
}

TEST(CompileCandidate, ErrorLogIsKeptAndCapped) {
  util::TempDir dir;
  const std::string huge(100000, 'x');
  FakeRunner runner([&](const util::ProcessSpec&) {
    return util::ProcessResult{.started = true,
                               .exit_code = 2,
                               .stderr_text = "candidate.cu(3): error: expected a \";\"\n" + huge};
  });
  auto out = compile_candidate(runner, {.nvcc = "nvcc", .log_cap_bytes = 1000}, arch::Arch::kHopper,
                               "int x", dir.path());
  EXPECT_FALSE(out.succeeded);
  EXPECT_EQ(out.failure, "nvcc exit 2");
  EXPECT_THAT(out.log, HasSubstr("error: expected a \";\""));
  EXPECT_EQ(out.log.size(), 1000u);
  EXPECT_TRUE(out.log_truncated);
}

TEST(CompileCandidate, AStaleObjectIsNeverReported) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "candidate.so", "from an earlier compile");
  FakeRunner runner([](const util::ProcessSpec&) {
    return util::ProcessResult{.started = true, .exit_code = 0};  // "succeeds" without output
  });
  auto out = compile_candidate(runner, {.nvcc = "nvcc"}, arch::Arch::kHopper, "int x;", dir.path());
  EXPECT_FALSE(out.succeeded);
}

TEST(NvccVersion, ReadsTheReleaseLine) {
  FakeRunner runner([](const util::ProcessSpec&) {
    return util::ProcessResult{.started = true,
                               .exit_code = 0,
                               .stdout_text =
                                   "nvcc: NVIDIA (R) Cuda compiler driver\n"
                                   "Cuda compilation tools, release 13.0, V13.0.88\n"
                                   "Build cuda_13.0.r13.0/compiler.36424714_0\n"};
  });
  EXPECT_EQ(nvcc_version(runner, "nvcc"), "Cuda compilation tools, release 13.0, V13.0.88");
  FakeRunner broken([](const util::ProcessSpec&) { return util::ProcessResult{}; });
  EXPECT_EQ(nvcc_version(broken, "nvcc"), "unknown");
}

}  // namespace
}  // namespace ptxbench::compile
