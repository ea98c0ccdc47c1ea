#include "ptxbench/util/fs.hpp"

#include <gtest/gtest.h>

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

TEST(Fs, ReadMissingFileIsAnError) {
  auto text = read_file("/nonexistent/ptxbench/file");
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("/nonexistent/ptxbench/file"), std::string::npos);
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
