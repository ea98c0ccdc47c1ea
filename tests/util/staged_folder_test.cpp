// An output folder appears complete or not at all: what a refused command staged is removed, a
// published folder replaces the old one whole, and a file where the folder should be is refused.
#include "ptxbench/util/staged_folder.hpp"

#include <gtest/gtest.h>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::util {
namespace {
namespace fs = std::filesystem;

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

TEST(StagedFolder, NothingAppearsUntilPublished) {
  TempDir dir;
  const auto out = dir.path() / "out";
  {
    auto staged = StagedFolder::begin(out, StagedFolder::Start::kEmpty);
    ASSERT_TRUE(staged.has_value()) << staged.error().message;
    write_file_atomic(staged->path() / "a.txt", "a");
    EXPECT_FALSE(fs::exists(out));
  }  // refused half-way: dropped
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(entries(dir.path()), 0u);
  auto staged = StagedFolder::begin(out, StagedFolder::Start::kEmpty);
  ASSERT_TRUE(staged.has_value());
  write_file_atomic(staged->path() / "a.txt", "a");
  ASSERT_TRUE(staged->publish().has_value());
  EXPECT_EQ(*read_file(out / "a.txt"), "a");
  EXPECT_EQ(entries(dir.path()), 1u);
  fs::create_directory(dir.path() / "reference");
  EXPECT_EQ(fs::status(out).permissions(), fs::status(dir.path() / "reference").permissions())
      << "a published folder has a folder's usual mode (umask), not a temporary folder's";
}

TEST(StagedFolder, ReplacesOrUpdatesAnExistingFolder) {
  TempDir dir;
  const auto out = dir.path() / "out";
  fs::create_directories(out / "sub");
  write_file_atomic(out / "old.txt", "old");
  write_file_atomic(out / "sub" / "kept.txt", "kept");
  {
    auto update = StagedFolder::begin(out, StagedFolder::Start::kExisting);
    ASSERT_TRUE(update.has_value());
    EXPECT_EQ(*read_file(update->path() / "sub" / "kept.txt"), "kept");
    write_file_atomic(update->path() / "new.txt", "new");
    ASSERT_TRUE(update->publish().has_value());
  }
  EXPECT_TRUE(fs::exists(out / "old.txt"));
  EXPECT_TRUE(fs::exists(out / "new.txt"));
  auto fresh = StagedFolder::begin(out, StagedFolder::Start::kEmpty);
  ASSERT_TRUE(fresh.has_value());
  write_file_atomic(fresh->path() / "only.txt", "only");
  ASSERT_TRUE(fresh->publish().has_value());
  EXPECT_EQ(entries(out), 1u);
  EXPECT_EQ(entries(dir.path()), 1u) << "the previous folder is removed";
}

TEST(StagedFolder, AFileOrDeviceWhereTheFolderShouldBeIsRefused) {
  TempDir dir;
  write_file_atomic(dir.path() / "file", "x");
  for (const fs::path& out : {dir.path() / "file", fs::path("/dev/null")}) {
    auto staged = StagedFolder::begin(out, StagedFolder::Start::kEmpty);
    ASSERT_FALSE(staged.has_value()) << out;
    EXPECT_EQ(staged.error().message, out.string() + ": exists and is not a folder");
  }
  EXPECT_EQ(entries(dir.path()), 1u);
  auto under_file = StagedFolder::begin(dir.path() / "file" / "out", StagedFolder::Start::kEmpty);
  ASSERT_FALSE(under_file.has_value());
  EXPECT_NE(under_file.error().message.find("file"), std::string::npos);
}

}  // namespace
}  // namespace ptxbench::util
