#include "ptxbench/sandbox/policy.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <algorithm>

#include "ptxbench/sandbox/evaluation_sandbox.hpp"
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

// Records the spec it is asked to run and answers that it ran.
class RecordingRunner final : public util::ProcessRunner {
 public:
  util::ProcessResult run(const util::ProcessSpec& spec) override {
    specs.push_back(spec);
    return {.started = true, .exit_code = 0};
  }
  std::vector<util::ProcessSpec> specs;
};

// The address-space limit a spawned process ends with: the spec's own is set first, then the
// further limits in order (util/spawn.cpp), so the last RLIMIT_AS wins.
std::optional<std::uint64_t> effective_address_space(const util::ProcessSpec& spec) {
  std::optional<std::uint64_t> limit = spec.address_space_limit_bytes;
  for (const auto& extra : spec.limits)
    if (extra.resource == RLIMIT_AS) limit = extra.value;
  return limit;
}

// --compile-memory is the compiler's limit in every sandbox mode: the sandbox's own policy no
// longer puts its 8 GiB over it, and 0 means no limit there either.
TEST(EvaluationSandbox, TheCompilerGetsTheCompileMemoryLimitInEveryMode) {
  for (Mode mode : {Mode::kStrict, Mode::kBestEffort, Mode::kOff}) {
    for (std::uint64_t limit :
         {std::uint64_t{2} << 30, std::uint64_t{32} << 30, std::uint64_t{0}}) {
      auto recorder = std::make_shared<RecordingRunner>();
      auto box = make_evaluation_sandbox(mode, recorder, {}, limit);
      if (!box.usable) continue;  // strict where this machine lacks a layer: nothing runs
      util::ProcessSpec spec{.argv = {"true"}};
      if (limit > 0) spec.address_space_limit_bytes = limit;
      box.compiler->run(spec);
      ASSERT_FALSE(recorder->specs.empty()) << to_string(mode);
      const auto effective = effective_address_space(recorder->specs.back());
      if (limit > 0) {
        EXPECT_EQ(effective, limit) << to_string(mode) << " " << (limit >> 30) << " GiB";
      } else {
        EXPECT_FALSE(effective.has_value()) << to_string(mode);
      }
    }
  }
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
