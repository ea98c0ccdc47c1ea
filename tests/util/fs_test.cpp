#include "ptxbench/util/fs.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

namespace ptxbench::util {
namespace {

TEST(Fs, AtomicWriteThenRead) {
  TempDir dir;
  auto path = dir.path() / "sub" / "file.json";
  write_file_atomic(path, "first");
  write_file_atomic(path, "second");
  auto text = read_file(path);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "second");
  // No temporary siblings left behind.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(path.parent_path()))
    ++entries;
  EXPECT_EQ(entries, 1);
}

// A cache that cannot take an entry (read-only in a sandbox, or a file in the way) is no error.
TEST(Fs, ACacheEntryIsWrittenWhereItCanBeAndSkippedElsewhere) {
  TempDir dir("ptxbench-cache-test-");
  EXPECT_TRUE(write_cache_file(dir.path() / "a" / "entry.json", "{}\n"));
  EXPECT_EQ(read_file(dir.path() / "a" / "entry.json").value(), "{}\n");
  write_file_atomic(dir.path() / "plain", "x");
  EXPECT_FALSE(write_cache_file(dir.path() / "plain" / "entry.json", "{}\n"));
}

TEST(Fs, ReadMissingFileIsAnError) {
  auto text = read_file("/nonexistent/ptxbench/file");
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("/nonexistent/ptxbench/file"), std::string::npos);
}

// Every kind of path that is not a regular file is refused at once, naming the file.
TEST(Fs, ReadsOnlyRegularFiles) {
  TempDir dir;
  const auto fifo = dir.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  auto from_fifo = read_file(fifo);  // must not wait for a writer
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_FALSE(from_fifo);
  EXPECT_NE(from_fifo.error().message.find(fifo.string() + ": a FIFO"), std::string::npos);

  auto zero = read_file("/dev/zero");
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message.find("/dev/zero: a character device"), std::string::npos);

  auto directory = read_file(dir.path());
  ASSERT_FALSE(directory);
  EXPECT_NE(directory.error().message.find("a directory"), std::string::npos);

  const auto loop = dir.path() / "loop";
  std::filesystem::create_symlink(loop, loop);
  auto looped = read_file(loop);
  ASSERT_FALSE(looped);
  EXPECT_NE(looped.error().message.find(loop.string()), std::string::npos);
}

TEST(Fs, ReadRefusesFilesOverTheCap) {
  TempDir dir;
  write_file_atomic(dir.path() / "big", std::string(1000, 'x'));
  EXPECT_TRUE(read_file(dir.path() / "big", 1000));
  auto refused = read_file(dir.path() / "big", 999);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("larger than 999 bytes"), std::string::npos);
}

TEST(Fs, TempDirNamesCarryTheOwnerPid) {
  TempDir dir("ptxbench-test-");
  EXPECT_TRUE(dir.path().filename().string().starts_with("ptxbench-test-" +
                                                         std::to_string(::getpid()) + "-"));
}

TEST(Fs, StaleTempDirsOfDeadOwnersAreRemoved) {
  TempDir base;
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);  // now a pid that no process has
  const auto dead = base.path() / ("ptxbench-eval-" + std::to_string(child) + "-AbC123");
  const auto alive = base.path() / ("ptxbench-eval-" + std::to_string(::getpid()) + "-XyZ789");
  const auto foreign = base.path() / "ptxbench-eval-notapid";
  for (const auto& d : {dead, alive, foreign}) std::filesystem::create_directories(d / "sub");
  EXPECT_EQ(remove_stale_temp_dirs(base.path(), "ptxbench-"), 1);
  EXPECT_FALSE(std::filesystem::exists(dead));
  EXPECT_TRUE(std::filesystem::exists(alive));
  EXPECT_TRUE(std::filesystem::exists(foreign));
}

TEST(Fs, TempDirRemovesItselfUnlessKept) {
  std::filesystem::path removed, kept;
  {
    TempDir a;
    removed = a.path();
    write_file_atomic(a.path() / "x", "1");
    TempDir b;
    kept = b.path();
    b.keep();
  }
  EXPECT_FALSE(std::filesystem::exists(removed));
  EXPECT_TRUE(std::filesystem::exists(kept));
  std::filesystem::remove_all(kept);
}

TEST(Fs, MovedTempDirIsOwnedOnce) {
  std::filesystem::path p;
  {
    TempDir a;
    p = a.path();
    TempDir b(std::move(a));
    EXPECT_EQ(b.path(), p);
  }
  EXPECT_FALSE(std::filesystem::exists(p));
}

}  // namespace
}  // namespace ptxbench::util
