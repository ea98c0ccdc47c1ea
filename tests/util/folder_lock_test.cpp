// The folder lock of run directories and Fixit folders: one holder at a time, named in the
// error; released by destruction, by a move's target only, and by the kernel when the holder is
// killed with SIGKILL.
#include "ptxbench/util/folder_lock.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::util {
namespace {

TEST(FolderLock, OneHolderAtATime) {
  TempDir dir;
  auto first = FolderLock::acquire(dir.path(), "test folder");
  ASSERT_TRUE(first) << first.error().message;
  auto second = FolderLock::acquire(dir.path(), "test folder");
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message,
            dir.path().string() + ": another ptxbench process is using this test folder");
  {
    FolderLock moved = std::move(*first);
    { FolderLock emptied = std::move(*first); }  // destroying a moved-from lock releases nothing
    EXPECT_FALSE(FolderLock::acquire(dir.path(), "test folder"));
  }
  EXPECT_TRUE(FolderLock::acquire(dir.path(), "test folder"));
}

TEST(FolderLock, MissingFolderIsAnErrorNamingTheLockFile) {
  auto lock = FolderLock::acquire("/nonexistent/ptxbench/folder", "run directory");
  ASSERT_FALSE(lock);
  EXPECT_NE(lock.error().message.find("/nonexistent/ptxbench/folder/.lock"), std::string::npos);
}

TEST(FolderLock, ReleasedWhenTheHolderIsKilled) {
  TempDir dir;
  const auto held = dir.path() / "held";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = FolderLock::acquire(dir.path(), "test folder");
    if (!lock) ::_exit(1);
    write_file_atomic(held, "yes");
    ::pause();
    ::_exit(0);
  }
  for (int i = 0; i < 200 && !std::filesystem::exists(held); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  ASSERT_TRUE(std::filesystem::exists(held)) << "the child never took the lock";
  EXPECT_FALSE(FolderLock::acquire(dir.path(), "test folder"));
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(FolderLock::acquire(dir.path(), "test folder"));
}

}  // namespace
}  // namespace ptxbench::util
