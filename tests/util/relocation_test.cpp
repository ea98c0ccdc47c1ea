// Configured paths found again in a tree copied elsewhere.
#include "ptxbench/util/relocation.hpp"

#include <gtest/gtest.h>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::util {
namespace {

TEST(Relocation, AnExistingPathIsKept) {
  TempDir dir;
  EXPECT_EQ(relocated(dir.path(), {"/somewhere"}), dir.path());
}

TEST(Relocation, AMovedTreeIsFoundFromTheExecutablesFolderUpwards) {
  TempDir copy;  // the tree as copied: <copy>/tasks and <copy>/build/src (the executable)
  std::filesystem::create_directories(copy.path() / "tasks" / "gemm");
  std::filesystem::create_directories(copy.path() / "build" / "src");
  const std::filesystem::path configured = "/opt/original/root/tasks/gemm";
  EXPECT_EQ(relocated(configured, {"/opt/original/root"}, copy.path() / "build" / "src"),
            copy.path() / "tasks" / "gemm");
  // A path under none of the roots, or found nowhere, stays as configured.
  EXPECT_EQ(relocated("/elsewhere/tasks", {"/opt/original/root"}, copy.path() / "build"),
            std::filesystem::path("/elsewhere/tasks"));
  EXPECT_EQ(relocated("/opt/original/root/missing", {"/opt/original/root"}, copy.path()),
            std::filesystem::path("/opt/original/root/missing"));
}

TEST(Relocation, TheRunningExecutableHasAFolder) {
  EXPECT_TRUE(std::filesystem::is_directory(running_executable_dir()));
}

}  // namespace
}  // namespace ptxbench::util
