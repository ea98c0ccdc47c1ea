// The nvcc invocation, with the compiler faked: fixed flags, bounded time, capped log.
#include "ptxbench/compile/compiler.hpp"

#include "ptxbench/compile/compile_cache.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
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

// A compile that runs out of its memory limit names the limit, and is not cached: another limit
// could let the same code compile.
TEST(CompileCandidate, AKillByTheMemoryLimitNamesTheLimit) {
  util::TempDir dir;
  FakeRunner runner([](const util::ProcessSpec&) {
    return util::ProcessResult{
        .started = true,
        .exit_code = 134,
        .stderr_text = "terminate called after throwing an instance of 'std::bad_alloc'\n"};
  });
  auto cache = std::make_shared<CompileCache>(dir.path() / "cache", 0);
  CompileOptions options{.nvcc = "nvcc", .memory_limit_bytes = std::uint64_t{16} << 30};
  options.cache = cache;
  auto out = compile_candidate(runner, options, arch::Arch::kHopper, "bomb", dir.path() / "a");
  EXPECT_FALSE(out.succeeded);
  EXPECT_THAT(out.failure, HasSubstr("nvcc exit 134: out of memory under the compile memory "
                                     "limit (16 GiB of address space"));
  EXPECT_THAT(out.failure, HasSubstr("--compile-memory"));
  compile_candidate(runner, options, arch::Arch::kHopper, "bomb", dir.path() / "b");
  EXPECT_EQ(runner.specs.size(), 2u) << "a failure of the limit was cached";

  // An abort without the allocation message still names the limit as its likely cause.
  FakeRunner aborted([](const util::ProcessSpec&) {
    return util::ProcessResult{.started = true, .term_signal = SIGKILL};
  });
  out = compile_candidate(aborted, {.nvcc = "nvcc", .memory_limit_bytes = std::uint64_t{3} << 29},
                          arch::Arch::kHopper, "bomb", dir.path() / "c");
  EXPECT_THAT(out.failure, HasSubstr("most often from the compile memory limit (1.50 GiB"));
  // Without a limit the exit alone is said.
  out = compile_candidate(runner, {.nvcc = "nvcc"}, arch::Arch::kHopper, "bomb", dir.path() / "d");
  EXPECT_EQ(out.failure, "nvcc exit 134");
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

namespace ptxbench::compile {
namespace {

// A fake nvcc that writes an object and a dependency rule and counts its runs.
struct CountingNvcc {
  int runs = 0;
  int exit_code = 0;
  bool time_out = false;
  std::shared_ptr<util::ProcessRunner> runner() {
    return std::make_shared<FakeRunner>([this](const util::ProcessSpec& spec) {
      ++runs;
      util::write_file_atomic(spec.working_dir / "candidate.so", "object " + std::to_string(runs));
      util::write_file_atomic(spec.working_dir / "candidate.d", "candidate.so: candidate.cu\n");
      return util::ProcessResult{.started = true,
                                 .exit_code = exit_code,
                                 .timed_out = time_out,
                                 .stderr_text =
                                     "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
                                     "ptxas info    : Used 40 registers, used 0 barriers\n"};
    });
  }
};

CompileOptions cached_options(const std::shared_ptr<CompileCache>& cache,
                              const std::shared_ptr<util::ProcessRunner>& nvcc) {
  return {.nvcc = "nvcc", .sandbox = nvcc, .cache = cache, .toolchain = "release 13.0"};
}

TEST(CompileCache, AnIdenticalCandidateIsCompiledOnce) {
  util::TempDir dir;
  auto cache = std::make_shared<CompileCache>(dir.path() / "cache", 0);
  CountingNvcc nvcc;
  auto runner = nvcc.runner();
  auto options = cached_options(cache, runner);
  const auto first =
      compile_candidate(*runner, options, arch::Arch::kHopper, "code", dir.path() / "a");
  ASSERT_TRUE(first.succeeded);
  EXPECT_FALSE(first.cached);
  const auto second =
      compile_candidate(*runner, options, arch::Arch::kHopper, "code", dir.path() / "b");
  ASSERT_TRUE(second.succeeded);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(nvcc.runs, 1);
  auto object = util::read_file(second.shared_object);
  ASSERT_TRUE(object.has_value());
  EXPECT_EQ(*object, "object 1");
  EXPECT_EQ(second.shared_object, dir.path() / "b" / "candidate.so");
  ASSERT_EQ(second.kernels.size(), 1u);
  EXPECT_EQ(second.kernels[0].registers, 40);
  EXPECT_EQ(second.command, first.command);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "b" / "candidate.d"));
  EXPECT_EQ(cache->stats().hits, 1u);
  EXPECT_EQ(cache->stats().misses, 1u);
}

TEST(CompileCache, TheKeyIsTheCodeTheArgvAndTheToolchain) {
  util::TempDir dir;
  auto cache = std::make_shared<CompileCache>(dir.path() / "cache", 0);
  CountingNvcc nvcc;
  auto runner = nvcc.runner();
  auto options = cached_options(cache, runner);
  compile_candidate(*runner, options, arch::Arch::kHopper, "code", dir.path() / "a");
  compile_candidate(*runner, options, arch::Arch::kHopper, "code ", dir.path() / "b");
  compile_candidate(*runner, options, arch::Arch::kBlackwell, "code", dir.path() / "c");
  options.toolchain = "release 13.1";
  compile_candidate(*runner, options, arch::Arch::kHopper, "code", dir.path() / "d");
  EXPECT_EQ(nvcc.runs, 4);
  EXPECT_EQ(cache->stats().hits, 0u);
}

TEST(CompileCache, AnEntryWhoseStoredKeyDiffersIsAMiss) {
  // A hash collision (simulated by rewriting the stored key) must never hand out another
  // candidate's object.
  util::TempDir dir;
  auto cache = std::make_shared<CompileCache>(dir.path() / "cache", 0);
  CountingNvcc nvcc;
  auto runner = nvcc.runner();
  auto options = cached_options(cache, runner);
  compile_candidate(*runner, options, arch::Arch::kHopper, "code", dir.path() / "a");
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() / "cache")) {
    util::write_file_atomic(entry.path() / "key.json", R"({"code":"other"})");
  }
  const auto again =
      compile_candidate(*runner, options, arch::Arch::kHopper, "code", dir.path() / "b");
  EXPECT_FALSE(again.cached);
  EXPECT_EQ(nvcc.runs, 2);
}

TEST(CompileCache, CompileErrorsAreKeptTimeoutsAreNot) {
  util::TempDir dir;
  auto cache = std::make_shared<CompileCache>(dir.path() / "cache", 0);
  CountingNvcc nvcc;
  nvcc.exit_code = 2;
  auto runner = nvcc.runner();
  auto options = cached_options(cache, runner);
  compile_candidate(*runner, options, arch::Arch::kHopper, "bad", dir.path() / "a");
  const auto error =
      compile_candidate(*runner, options, arch::Arch::kHopper, "bad", dir.path() / "b");
  EXPECT_FALSE(error.succeeded);
  EXPECT_TRUE(error.cached);
  EXPECT_EQ(error.failure, "nvcc exit 2");
  EXPECT_EQ(nvcc.runs, 1);
  nvcc.exit_code = 0;
  nvcc.time_out = true;
  compile_candidate(*runner, options, arch::Arch::kHopper, "slow", dir.path() / "c");
  compile_candidate(*runner, options, arch::Arch::kHopper, "slow", dir.path() / "d");
  EXPECT_EQ(nvcc.runs, 3);
}

std::uint64_t folder_bytes(const std::filesystem::path& dir) {
  std::uint64_t bytes = 0;
  for (const auto& file : std::filesystem::recursive_directory_iterator(dir)) {
    if (file.is_regular_file()) bytes += file.file_size();
  }
  return bytes;
}

TEST(CompileCache, EvictsTheLeastRecentlyUsedBeyondItsBudget) {
  util::TempDir dir;
  CountingNvcc nvcc;
  auto runner = nvcc.runner();
  // One entry's size, measured, sets a budget of three and a half entries.
  {
    auto probe = std::make_shared<CompileCache>(dir.path() / "probe", 0);
    auto options = cached_options(probe, runner);
    compile_candidate(*runner, options, arch::Arch::kHopper, "code 0", dir.path() / "probe-work");
  }
  const std::uint64_t entry_bytes = folder_bytes(dir.path() / "probe");
  ASSERT_GT(entry_bytes, 0u);
  const std::uint64_t budget = entry_bytes * 7 / 2;
  auto cache = std::make_shared<CompileCache>(dir.path() / "cache", budget);
  auto options = cached_options(cache, runner);
  for (int i = 0; i < 6; ++i) {
    compile_candidate(*runner, options, arch::Arch::kHopper, "code " + std::to_string(i),
                      dir.path() / std::to_string(i));
  }
  EXPECT_EQ(cache->stats().evictions, 3u);
  EXPECT_LE(folder_bytes(dir.path() / "cache"), budget);
  // The newest is kept, the oldest went first.
  const int runs = nvcc.runs;
  compile_candidate(*runner, options, arch::Arch::kHopper, "code 5", dir.path() / "again5");
  EXPECT_EQ(nvcc.runs, runs);
  compile_candidate(*runner, options, arch::Arch::kHopper, "code 0", dir.path() / "again0");
  EXPECT_EQ(nvcc.runs, runs + 1);
}

TEST(CompileCache, AnUnwritableFolderOnlyCostsTheSavedWork) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "file", "x");
  auto cache = std::make_shared<CompileCache>(dir.path() / "file" / "cache", 0);
  CountingNvcc nvcc;
  auto runner = nvcc.runner();
  auto options = cached_options(cache, runner);
  EXPECT_TRUE(
      compile_candidate(*runner, options, arch::Arch::kHopper, "code", dir.path() / "a").succeeded);
  EXPECT_TRUE(
      compile_candidate(*runner, options, arch::Arch::kHopper, "code", dir.path() / "b").succeeded);
  EXPECT_EQ(nvcc.runs, 2);
}

}  // namespace
}  // namespace ptxbench::compile
