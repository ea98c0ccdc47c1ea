#include "ptxbench/util/lru_folder.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::util {
namespace {
namespace fs = std::filesystem;

// Three 100-byte entries used in the order a, b, c (a the oldest), and a file that is no entry.
void write_entries(const fs::path& dir) {
  const auto now = fs::file_time_type::clock::now();
  int age = 3;
  for (const char* name : {"a.entry", "b.entry", "c.entry"}) {
    std::ofstream(dir / name) << std::string(100, 'x');
    fs::last_write_time(dir / name, now - std::chrono::hours(age--));
  }
  std::ofstream(dir / "notes.txt") << std::string(1000, 'y');
}

std::optional<std::uint64_t> entry_size(const fs::directory_entry& entry) {
  if (entry.path().extension() != ".entry") return std::nullopt;
  return entry.file_size();
}

TEST(LruFolder, RemovesTheOldestEntriesUntilTheFolderFits) {
  TempDir dir;
  write_entries(dir.path());
  const auto kept = evict_least_recently_used(dir.path(), 250, entry_size);
  EXPECT_EQ(kept.removed, 1u);
  EXPECT_EQ(kept.bytes_left, 200u);
  EXPECT_FALSE(fs::exists(dir.path() / "a.entry"));
  EXPECT_TRUE(fs::exists(dir.path() / "b.entry"));
  EXPECT_TRUE(fs::exists(dir.path() / "c.entry"));
  EXPECT_TRUE(fs::exists(dir.path() / "notes.txt"));  // not an entry: never counted or removed
}

TEST(LruFolder, WithinTheBudgetOrWithoutOneNothingIsRemoved) {
  TempDir dir;
  write_entries(dir.path());
  EXPECT_EQ(evict_least_recently_used(dir.path(), 300, entry_size).removed, 0u);
  const auto unlimited = evict_least_recently_used(dir.path(), 0, entry_size);
  EXPECT_EQ(unlimited.removed, 0u);
  EXPECT_EQ(unlimited.bytes_left, 300u);
  EXPECT_EQ(evict_least_recently_used(dir.path() / "missing", 1, entry_size).bytes_left, 0u);
}

}  // namespace
}  // namespace ptxbench::util
