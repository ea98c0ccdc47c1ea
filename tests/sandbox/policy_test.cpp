#include "ptxbench/sandbox/policy.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "ptxbench/sandbox/layers.hpp"
#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::sandbox {
namespace {

TEST(SandboxMode, ParsesTheThreeModesAndRejectsOthers) {
  EXPECT_EQ(parse_mode("strict").value(), Mode::kStrict);
  EXPECT_EQ(parse_mode("best-effort").value(), Mode::kBestEffort);
  EXPECT_EQ(parse_mode("off").value(), Mode::kOff);
  auto bad = parse_mode("on");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("strict, best-effort, off"), std::string::npos);
  for (Mode m : {Mode::kStrict, Mode::kBestEffort, Mode::kOff})
    EXPECT_EQ(parse_mode(to_string(m)).value(), m);
}

// The candidate worker writes each output whole into its exchange folder, under RLIMIT_FSIZE: the
// limit must hold the largest output of any workload of the suite (O of mha_fwd_lse_d256 at
// S=16384 is 1.5 GiB), or an honest kernel dies of SIGXFSZ.
TEST(SandboxPolicy, TheFileSizeLimitHoldsEveryOutputOfTheSuite) {
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite.has_value()) << suite.error().message;
  std::uint64_t largest = 0;
  for (const auto& task : *suite) {
    for (const auto& workload : task.workloads) {
      for (const auto& output : task.outputs) {
        std::uint64_t bytes = task::size_bytes(output.dtype);
        for (auto extent : task.shape_of(output, workload)) bytes *= extent;
        largest = std::max(largest, bytes);
      }
    }
  }
  EXPECT_GT(largest, 1ull << 30);  // the suite has outputs over 1 GiB: the check is not idle
  EXPECT_GE(worker_policy(Mode::kStrict).limits.file_size_bytes, largest);
}

TEST(SandboxPolicy, EnvironmentAllowListTakesNamesAndPrefixes) {
  const Policy policy = worker_policy(Mode::kStrict);
  EXPECT_TRUE(environment_allowed(policy, "CUDA_VISIBLE_DEVICES"));
  EXPECT_TRUE(environment_allowed(policy, "LD_LIBRARY_PATH"));
  EXPECT_FALSE(environment_allowed(policy, "OPENAI_API_KEY"));
  EXPECT_FALSE(environment_allowed(policy, "ANTHROPIC_API_KEY"));
  EXPECT_FALSE(environment_allowed(policy, "HF_TOKEN"));
  EXPECT_FALSE(environment_allowed(policy, "LD_PRELOAD"));
}

TEST(SandboxPolicy, CompilerHasMemoryLimitsAndNoDevices) {
  const Policy policy = compiler_policy(Mode::kStrict, 4ull << 30);
  EXPECT_FALSE(policy.gpu_devices);
  EXPECT_EQ(policy.limits.address_space_bytes, 4ull << 30);
  EXPECT_TRUE(worker_policy(Mode::kStrict).gpu_devices);
  EXPECT_FALSE(worker_policy(Mode::kStrict).limits.address_space_bytes.has_value());
}

TEST(SandboxDescription, FullPartialOff) {
  Support all;
  all.usable = Layers{.namespaces = true, .seccomp = true, .other_user = true};
  EXPECT_EQ(describe(Mode::kStrict, all), "full");
  EXPECT_EQ(describe(Mode::kOff, all), "off");
  Support some;
  some.usable = Layers{.namespaces = true};
  some.why = {"no seccomp filter (x)", "runs as root (no setpriv)"};
  EXPECT_EQ(describe(Mode::kBestEffort, some),
            "partial: no seccomp filter (x); runs as root (no setpriv)");
  EXPECT_FALSE(complete(some.usable));
}

}  // namespace
}  // namespace ptxbench::sandbox
