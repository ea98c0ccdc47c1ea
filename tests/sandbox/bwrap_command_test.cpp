#include "ptxbench/sandbox/bwrap_command.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>

namespace ptxbench::sandbox {
namespace {

using ::testing::Contains;
using ::testing::Not;

// True when `argv` holds the items in sequence.
bool has_sequence(const std::vector<std::string>& argv, const std::vector<std::string>& items) {
  return std::search(argv.begin(), argv.end(), items.begin(), items.end()) != argv.end();
}

TEST(BwrapCommand, UnsharesEverythingAndEndsWithTheCommand) {
  const Policy policy = worker_policy(Mode::kStrict);
  util::ProcessSpec spec{.argv = {"/usr/bin/true", "x"}};
  auto argv = bwrap_argv({.bwrap = "/usr/bin/bwrap", .seccomp_fd = 7}, policy, spec, {});
  for (const char* flag : {"--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                           "--die-with-parent", "--new-session", "--clearenv", "--unshare-user"})
    EXPECT_THAT(argv, Contains(flag));
  EXPECT_TRUE(has_sequence(argv, {"--seccomp", "7"}));
  EXPECT_TRUE(has_sequence(argv, {"--cap-drop", "ALL", "--", "/usr/bin/true", "x"}));
  EXPECT_TRUE(has_sequence(argv, {"--remount-ro", "/"}));
  EXPECT_EQ(argv.back(), "x");
}

TEST(BwrapCommand, AsRootLeavesRootThroughSetprivInside) {
  Policy policy = worker_policy(Mode::kStrict);
  util::ProcessSpec spec{.argv = {"/usr/bin/true"}};
  auto argv = bwrap_argv({.bwrap = "bwrap", .setpriv = "/usr/bin/setpriv"}, policy, spec, {});
  EXPECT_THAT(argv, Not(Contains("--unshare-user")));
  EXPECT_TRUE(has_sequence(argv, {"--", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                                  "--clear-groups", "--inh-caps=-all", "--", "/usr/bin/true"}));
}

TEST(BwrapCommand, WritablePathsAndScratchSize) {
  Policy policy = compiler_policy(Mode::kStrict);
  policy.limits.scratch_bytes = 1234;
  const auto tmp = std::filesystem::temp_directory_path();
  util::ProcessSpec spec{.argv = {"/usr/bin/true"}, .working_dir = tmp, .write_paths = {tmp}};
  auto argv = bwrap_argv({.bwrap = "bwrap"}, policy, spec, {});
  const auto real = std::filesystem::canonical(tmp).string();
  EXPECT_TRUE(has_sequence(argv, {"--bind", real, tmp.string()}));
  EXPECT_TRUE(has_sequence(argv, {"--size", "1234", "--tmpfs", "/tmp"}));
  EXPECT_TRUE(has_sequence(argv, {"--chdir", tmp.string()}));
  EXPECT_FALSE(has_sequence(argv, {"--ro-bind", "/sys", "/sys"}));  // no GPU for the compiler
}

TEST(BwrapCommand, EnvironmentIsTheAllowListPlusTheSpecs) {
  const Policy policy = worker_policy(Mode::kStrict);
  util::ProcessSpec spec{.argv = {"true"}, .env = {{"CUDA_MODULE_LOADING", "LAZY"}}};
  const Environment parent = {{"OPENAI_API_KEY", "sk-secret"},
                              {"CUDA_VISIBLE_DEVICES", "0"},
                              {"PATH", "/usr/bin"},
                              {"HOME", "/root"}};
  const Environment env = sandbox_environment(policy, spec, parent);
  auto value = [&](const std::string& key) -> std::string {
    for (const auto& [k, v] : env)
      if (k == key) return v;
    return "<unset>";
  };
  EXPECT_EQ(value("OPENAI_API_KEY"), "<unset>");
  EXPECT_EQ(value("CUDA_VISIBLE_DEVICES"), "0");
  EXPECT_EQ(value("CUDA_MODULE_LOADING"), "LAZY");
  EXPECT_EQ(value("HOME"), "/tmp");
  EXPECT_EQ(value("TMPDIR"), "/tmp");
  EXPECT_EQ(value("PATH"), "/usr/bin");
}

TEST(BwrapCommand, LimitsTurnOffCoreDumps) {
  const auto limits = resource_limits(worker_policy(Mode::kStrict));
  bool core_off = false;
  for (const auto& l : limits) core_off |= l.resource == RLIMIT_CORE && l.value == 0;
  EXPECT_TRUE(core_off);
}

}  // namespace
}  // namespace ptxbench::sandbox
