// The reference cache's host side: keys, entries as the judge loads and stores them, and the
// parent's least-recently-used eviction by bytes (reference_cache/).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include "ptxbench/eval/reference_cache/judge_references.hpp"
#include "ptxbench/eval/reference_cache/reference_eviction.hpp"
#include "ptxbench/eval/reference_cache/reference_store.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval::reference_cache {
namespace {

namespace fs = std::filesystem;

ReferenceKey sample_key() {
  return ReferenceKey{.task = "task-fp", .workload = "M4096", .trial_seed = 42, .gpu = "H200|9.1"};
}

// A job with one bf16 output of 2x3 (12 bytes; its reference 24 bytes).
worker::WorkerJob sample_job(const fs::path& dir) {
  worker::WorkerJob job;
  job.workload = "M2";
  job.outputs = {{"C", task::DType::kBFloat16, {2, 3}, {"M", "N"}}};
  job.reference_cache = {.dir = dir, .task = "task-fp", .gpu = "H200"};
  return job;
}

ReferenceEntry sample_entry() {
  return ReferenceEntry{.library = {std::vector<char>(12, 'L')},
                        .reference = {std::vector<char>(24, 'R')}};
}

TEST(ReferenceKey, ChangesWithEachComponent) {
  std::set<std::string> files;
  const fs::path dir = "/c";
  auto add = [&](const ReferenceKey& key) { files.insert(entry_file(dir, key).string()); };
  ReferenceKey key = sample_key();
  add(key);
  key.task = "other-task";
  add(key);
  key = sample_key();
  key.workload = "M8192";
  add(key);
  key = sample_key();
  key.trial_seed = 43;
  add(key);
  key = sample_key();
  key.gpu = "H200|9.2";  // another cuDNN
  add(key);
  EXPECT_EQ(files.size(), 5u);
  EXPECT_EQ(entry_file(dir, sample_key()), entry_file(dir, sample_key()));  // and is stable
  EXPECT_EQ(entry_file(dir, sample_key()).extension(), kEntryExtension);
}

TEST(ReferenceStore, StoredEntryLoadsBackWithItsBytes) {
  util::TempDir tmp("reference-cache-");
  const ReferenceShape shape{.library_bytes = {12}, .reference_bytes = {24}};
  EXPECT_FALSE(load_reference(tmp.path(), sample_key(), shape).has_value());
  ASSERT_TRUE(store_reference(tmp.path(), sample_key(), sample_entry()));
  auto back = load_reference(tmp.path(), sample_key(), shape);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->library, sample_entry().library);
  EXPECT_EQ(back->reference, sample_entry().reference);
  // Another trial's seed is another entry.
  ReferenceKey other = sample_key();
  other.trial_seed = 7;
  EXPECT_FALSE(load_reference(tmp.path(), other, shape).has_value());
}

TEST(ReferenceStore, AnEntryWithoutReferenceKeepsItsReason) {
  util::TempDir tmp("reference-cache-");
  ReferenceEntry entry{.library = {std::vector<char>(12, 'L')},
                       .reference_unavailable = "no reference for this operator"};
  ASSERT_TRUE(store_reference(tmp.path(), sample_key(), entry));
  auto back =
      load_reference(tmp.path(), sample_key(), {.library_bytes = {12}, .reference_bytes = {24}});
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->reference.empty());
  EXPECT_EQ(back->reference_unavailable, "no reference for this operator");
}

TEST(ReferenceStore, MisSizedDamagedOrForeignEntriesAreMisses) {
  util::TempDir tmp("reference-cache-");
  ASSERT_TRUE(store_reference(tmp.path(), sample_key(), sample_entry()));
  // Other sizes (another shape under the same key) are a miss.
  EXPECT_FALSE(load_reference(tmp.path(), sample_key(), {{14}, {24}}).has_value());
  EXPECT_FALSE(load_reference(tmp.path(), sample_key(), {{12}, {28}}).has_value());
  const fs::path file = entry_file(tmp.path(), sample_key());
  const auto whole = fs::file_size(file);
  // Truncated: a miss.
  fs::resize_file(file, whole - 1);
  EXPECT_FALSE(load_reference(tmp.path(), sample_key(), {{12}, {24}}).has_value());
  // Longer than its header says: a miss.
  fs::resize_file(file, whole + 1);
  EXPECT_FALSE(load_reference(tmp.path(), sample_key(), {{12}, {24}}).has_value());
  // Another key's entry under this key's name (a hash collision): a miss.
  ReferenceKey other = sample_key();
  other.workload = "M1";
  fs::remove(file);
  ASSERT_TRUE(store_reference(tmp.path(), other, sample_entry()));
  fs::rename(entry_file(tmp.path(), other), file);
  EXPECT_FALSE(load_reference(tmp.path(), sample_key(), {{12}, {24}}).has_value());
  // Not an entry at all.
  util::write_file_atomic(file, "garbage\n{}\n");
  EXPECT_FALSE(load_reference(tmp.path(), sample_key(), {{12}, {24}}).has_value());
}

TEST(ReferenceStore, AFolderThatCannotBeWrittenOnlyCostsTheWork) {
  EXPECT_FALSE(store_reference("/proc/no-such-folder", sample_key(), sample_entry()));
}

TEST(JudgeReferences, MissThenOfferThenHitAreCounted) {
  util::TempDir tmp("reference-cache-");
  const auto job = sample_job(tmp.path());
  JudgeReferences first(job);
  EXPECT_FALSE(first.find(11).has_value());
  first.offer(11, sample_entry());
  EXPECT_EQ(first.counts().misses, 1u);
  EXPECT_EQ(first.counts().hits, 0u);
  JudgeReferences second(job);  // the next candidate's judge
  auto hit = second.find(11);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->library, sample_entry().library);
  EXPECT_FALSE(second.find(12).has_value());  // another trial seed
  EXPECT_EQ(second.counts().hits, 1u);
  EXPECT_EQ(second.counts().misses, 1u);
}

TEST(JudgeReferences, OffCountsNothingAndStoresNothing) {
  util::TempDir tmp("reference-cache-");
  auto job = sample_job(tmp.path());
  job.reference_cache = {};
  JudgeReferences off(job);
  EXPECT_FALSE(off.enabled());
  EXPECT_FALSE(off.find(11).has_value());
  off.offer(11, sample_entry());
  EXPECT_EQ(off.counts().hits + off.counts().misses, 0u);
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(JudgeReferences, TrialsTooLargeToKeepAreNeitherLookedUpNorCounted) {
  util::TempDir tmp("reference-cache-");
  auto job = sample_job(tmp.path());
  // 2^27 bf16 elements: 256 MiB of outputs and 512 MiB of reference fit; twice that does not.
  job.outputs = {{"O", task::DType::kBFloat16, {1 << 27}, {"N"}}};
  EXPECT_TRUE(JudgeReferences(job).enabled());
  job.outputs = {{"O", task::DType::kBFloat16, {1 << 28}, {"N"}}};
  JudgeReferences large(job);
  EXPECT_FALSE(large.enabled());
  EXPECT_FALSE(large.find(11).has_value());
  EXPECT_EQ(large.counts().hits + large.counts().misses, 0u);
}

TEST(JudgeReferences, OutputsOfTheWrongSizeAreNeverStored) {
  util::TempDir tmp("reference-cache-");
  JudgeReferences references(sample_job(tmp.path()));
  references.offer(11, ReferenceEntry{.library = {std::vector<char>(10, 'L')}});
  references.offer(11, ReferenceEntry{});
  EXPECT_TRUE(fs::is_empty(tmp.path()));
  EXPECT_EQ(shape_of(sample_job(tmp.path())).reference_bytes, (std::vector<std::size_t>{24}));
}

TEST(ReferenceEviction, RemovesLeastRecentlyUsedBeyondTheBudget) {
  util::TempDir tmp("reference-cache-");
  const auto now = fs::file_time_type::clock::now();
  std::vector<fs::path> files;
  for (int i = 0; i < 4; ++i) {
    files.push_back(tmp.path() / ("e" + std::to_string(i) + std::string(kEntryExtension)));
    util::write_file_atomic(files.back(), std::string(100, 'x'));
    fs::last_write_time(files.back(), now - std::chrono::minutes(10 - i));  // e0 oldest
  }
  // A hit refreshes e0: it becomes the most recently used.
  fs::last_write_time(files[0], now);
  // Temp files of an unfinished publish and other files are not entries.
  util::write_file_atomic(tmp.path() / ".e9.ref.AbCdEf", std::string(1000, 't'));
  util::write_file_atomic(tmp.path() / "salt", std::string(1000, 's'));

  EXPECT_EQ(evict_references(tmp.path(), 0).removed, 0u);  // no limit
  auto evicted = evict_references(tmp.path(), 250);
  EXPECT_EQ(evicted.removed, 2u);
  EXPECT_EQ(evicted.bytes_left, 200u);
  EXPECT_TRUE(fs::exists(files[0]));
  EXPECT_FALSE(fs::exists(files[1]));
  EXPECT_FALSE(fs::exists(files[2]));
  EXPECT_TRUE(fs::exists(files[3]));
  EXPECT_TRUE(fs::exists(tmp.path() / ".e9.ref.AbCdEf"));
  EXPECT_EQ(evict_references(tmp.path(), 250).removed, 0u);  // within the budget now
  EXPECT_EQ(evict_references(tmp.path() / "missing", 1).removed, 0u);
}

}  // namespace
}  // namespace ptxbench::eval::reference_cache
