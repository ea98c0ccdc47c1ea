// Exchange directories carry their owner's pid, so the first one a process makes under a root
// removes those a killed process left there (and leaves those of live processes alone).
#include "ptxbench/eval/worker/exchange.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval::worker {
namespace {

namespace fs = std::filesystem;

// The pid of a process that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

TEST(ExchangeDir, NamedByOwnerAndSweepsWhatAKilledOwnerLeft) {
  util::TempDir root;
  const fs::path stale =
      root.path() / (std::string(kExchangePrefix) + std::to_string(dead_pid()) + "-Ab12Cd");
  const fs::path live =
      root.path() / (std::string(kExchangePrefix) + std::to_string(::getppid()) + "-Zz99Yy");
  fs::create_directories(stale);
  fs::create_directories(live);
  util::write_file_atomic(stale / "job0.trial0.C.bin", "left by a killed run");
  fs::path made;
  {
    ExchangeDir exchange(root.path());
    made = exchange.path();
    const std::string name = made.filename().string();
    EXPECT_TRUE(name.starts_with(std::string(kExchangePrefix) + std::to_string(::getpid()) + "-"))
        << name;
    EXPECT_TRUE(fs::is_directory(made));
    EXPECT_FALSE(fs::exists(stale)) << "the killed owner's exchange folder was left behind";
    EXPECT_TRUE(fs::exists(live));
  }
  EXPECT_FALSE(fs::exists(made));
  // The general temp sweep reads the same names.
  fs::create_directories(stale);
  EXPECT_EQ(util::remove_stale_temp_dirs(root.path(), "ptxbench-"), 1);
  EXPECT_TRUE(fs::exists(live));
}

}  // namespace
}  // namespace ptxbench::eval::worker
