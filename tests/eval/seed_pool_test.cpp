// The seed pool: SipHash-2-4 against its published vectors, a pool's seeds recur and stay in
// the pool, salts keep pools apart, the installation's salt is made once and kept private.
#include "ptxbench/eval/correctness/seed_pool.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <set>
#include <string>

#include "ptxbench/eval/task_fingerprint.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval::correctness {
namespace {

task::Task small_task(std::string name) {
  task::Task task;
  task.name = std::move(name);
  task.workloads.push_back({.name = "M64", .axes = {{"M", 64}}, .seed = 7, .headline = true});
  return task;
}

TEST(SipHash, MatchesThePaperVectors) {
  // Key 00 01 .. 0f; messages 00 01 .. (n-1): the reference implementation's vectors.
  const std::array<std::uint64_t, 2> key{0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
  std::string message;
  EXPECT_EQ(siphash24(key, message), 0x726fdb47dd0e0e31ull);
  for (int i = 0; i < 15; ++i) message.push_back(static_cast<char>(i));
  EXPECT_EQ(siphash24(key, message), 0xa129ca6149be45e5ull);
}

TEST(SeedSource, AFixedSeedIsEveryVerdictsSeed) {
  const SeedSource seeds(42, 8, {1, 2});
  const auto choice = seeds.choose(small_task("t"));
  EXPECT_EQ(choice.seed, 42u);
  EXPECT_EQ(choice.pool_size, 0);
  EXPECT_FALSE(choice.fresh);
}

TEST(SeedSource, PoolZeroDrawsAFreshSeedEachTime) {
  const SeedSource seeds(std::nullopt, 0, {1, 2});
  const auto task = small_task("t");
  const auto a = seeds.choose(task), b = seeds.choose(task);
  EXPECT_TRUE(a.fresh);
  EXPECT_NE(a.seed, 0u);
  EXPECT_NE(a.seed, b.seed);
}

TEST(SeedSource, EveryVerdictDrawsOneOfThePoolsSeeds) {
  const SeedSource seeds(std::nullopt, 4, {1, 2});
  const auto task = small_task("t");
  std::set<std::uint64_t> pool;
  for (int i = 0; i < 4; ++i) pool.insert(seeds.pool_seed(task, i));
  EXPECT_EQ(pool.size(), 4u);
  std::set<std::uint64_t> drawn;
  for (int i = 0; i < 200; ++i) {
    const auto choice = seeds.choose(task);
    ASSERT_EQ(choice.pool_size, 4);
    ASSERT_GE(choice.pool_index, 0);
    ASSERT_LT(choice.pool_index, 4);
    EXPECT_EQ(choice.seed, seeds.pool_seed(task, choice.pool_index));
    drawn.insert(choice.seed);
  }
  EXPECT_EQ(drawn, pool);  // 200 draws of 4: every seed came up (chance of failing ~1e-24)
}

TEST(SeedSource, TheSaltAndTheTaskDecideThePool) {
  const auto task = small_task("t");
  const SeedSource a(std::nullopt, 4, {1, 2}), same(std::nullopt, 4, {1, 2}),
      other_salt(std::nullopt, 4, {1, 3});
  EXPECT_EQ(a.pool_seed(task, 0), same.pool_seed(task, 0));
  EXPECT_NE(a.pool_seed(task, 0), other_salt.pool_seed(task, 0));
  EXPECT_NE(a.pool_seed(task, 0), a.pool_seed(small_task("u"), 0));
  auto edited = task;
  edited.workloads.front().seed = 8;  // a changed task file gets a new pool
  EXPECT_NE(a.pool_seed(task, 0), a.pool_seed(edited, 0));
}

TEST(InstallationSalt, IsMadeOncePrivateAndKept) {
  util::TempDir dir("seed-salt-");
  const auto file = dir.path() / "cache" / "seed-pool.salt";
  const auto made = installation_salt(file);
  ASSERT_TRUE(made.has_value());
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(installation_salt(file), made);
  EXPECT_NE(*made, random_salt());
}

TEST(InstallationSalt, AMangledFileIsNoSalt) {
  util::TempDir dir("seed-salt-");
  const auto file = dir.path() / "seed-pool.salt";
  util::write_file_atomic(file, "not hex\n");
  EXPECT_FALSE(installation_salt(file).has_value());
}

TEST(TaskFingerprint, ChangesWithWhatTheJudgeReads) {
  auto task = small_task("t");
  const auto before = task_fingerprint(task);
  EXPECT_EQ(task_fingerprint(task), before);
  task.tolerance.rule = task::CorrectnessRule::kMatchesLibrary;
  EXPECT_NE(task_fingerprint(task), before);
}

}  // namespace
}  // namespace ptxbench::eval::correctness
