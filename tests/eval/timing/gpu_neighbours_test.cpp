// Who else used the GPU: the timing process's own tree is found from /proc (what NVML's process
// ids are compared with), and without NVML nothing is claimed.
#include "ptxbench/eval/timing/gpu_neighbours.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

namespace ptxbench::eval {
namespace {

TEST(ProcessTree, HoldsTheRootAndItsChildrensChildren) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::fork() == 0) ::pause();  // a grandchild
    ::pause();
  }
  pid_t grandchild = 0;
  for (int tries = 0; tries < 100 && grandchild == 0; ++tries) {
    const auto tree = process_tree(child);
    if (tree.size() >= 2) {
      grandchild = tree.back();
    } else {
      ::usleep(10000);
    }
  }
  const auto tree = process_tree(::getpid());
  EXPECT_NE(std::find(tree.begin(), tree.end(), ::getpid()), tree.end());
  EXPECT_NE(std::find(tree.begin(), tree.end(), child), tree.end());
  EXPECT_NE(grandchild, 0);
  EXPECT_NE(std::find(tree.begin(), tree.end(), grandchild), tree.end());
  ::kill(grandchild, SIGKILL);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_EQ(process_tree(999999999), std::vector<pid_t>{999999999});  // no such process
}

TEST(GpuNeighbours, WithoutNvmlNothingIsClaimed) {
  // On a machine with the driver this opens; without, it says why (never "alone").
  auto opened = open_gpu_neighbours("");
  if (opened) GTEST_SKIP() << "NVML is present here";
  EXPECT_FALSE(opened.error().message.empty());
}

}  // namespace
}  // namespace ptxbench::eval
