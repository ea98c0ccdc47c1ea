// Where each verdict's input seed comes from (docs/correctness.md, "Fresh inputs"):
//   fixed  --seed N: every verdict uses N (a replay);
//   pool   --seed-pool N: each verdict draws one of N seeds kept per task, so the same inputs
//          recur and references (and whole verdicts, eval/verdict_cache.hpp) can be reused;
//   fresh  --seed-pool 0 (the default): a new seed from the OS's entropy per verdict.
// A task's pool is SipHash-2-4 of a secret salt (a per-installation file in ptxbench's cache
// folder, which no sandbox shows a candidate; a per-process salt where it cannot be kept), the
// task's name and content and the index: the task file alone predicts none of its seeds.
// Every workload's seed derives from the verdict's seed (input_seed.hpp), so each (task,
// workload) has N seeds too, and the record's input_seed replays the verdict with --seed.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "ptxbench/task/task.hpp"

namespace ptxbench::eval::correctness {

inline constexpr int kMaxSeedPool = 1 << 20;

// SipHash-2-4 (Aumasson and Bernstein): a keyed hash fit to derive secret values.
std::uint64_t siphash24(const std::array<std::uint64_t, 2>& key, std::string_view bytes);

// How a verdict's seed was chosen; `pool_size` 0: not from a pool.
struct SeedChoice {
  std::uint64_t seed = 0;
  int pool_size = 0;
  int pool_index = 0;
  bool fresh = false;  // drawn from entropy: no other verdict shares it
};

// The salt of this installation: read from `file`, or made there (0600, 128 random bits) when
// absent. nullopt when the file can neither be read nor made.
std::optional<std::array<std::uint64_t, 2>> installation_salt(const std::filesystem::path& file);
// <ptxbench cache folder>/seed-pool.salt ($PTXBENCH_CACHE_DIR, else $XDG_CACHE_HOME/ptxbench,
// else ~/.cache/ptxbench).
std::filesystem::path default_salt_file();
// 128 bits from the OS's entropy: a salt for one process.
std::array<std::uint64_t, 2> random_salt();

class SeedSource {
 public:
  // `fixed`: every verdict's seed; else `pool_size` seeds per task (0: fresh per verdict).
  SeedSource(std::optional<std::uint64_t> fixed, int pool_size, std::array<std::uint64_t, 2> salt);

  SeedChoice choose(const task::Task& task) const;
  // The pool's seed at `index` (never 0: seed 0 means "the task files' seeds").
  std::uint64_t pool_seed(const task::Task& task, int index) const;
  int pool_size() const { return pool_size_; }
  // Whether every verdict gets the --seed given (so verdicts repeat their inputs).
  bool fixed() const { return fixed_.has_value(); }

 private:
  std::optional<std::uint64_t> fixed_;
  int pool_size_;
  std::array<std::uint64_t, 2> salt_;
};

}  // namespace ptxbench::eval::correctness
