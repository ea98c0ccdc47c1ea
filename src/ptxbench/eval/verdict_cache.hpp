// A cache of verdicts: what the GPU stages decided for one candidate, found again when the same
// candidate is judged again under the same conditions (RL and rejection-sampling streams resubmit
// identical code, and the GPU stages are most of a verdict's cost). An entry is keyed by
// everything that decides the verdict:
//   the candidate's code (the text itself: a hit is byte equality, never a hash match alone),
//   the task (task_fingerprint.hpp: its fields and its file's bytes) and the arch,
//   the verdict's input seed (a pure function of the seed: see "Seeds" below),
//   every setting that decides a verdict (verdict_settings_text),
//   the toolchain (nvcc and the disassembler's versions), the GPU (name, compute capability,
//   SMs, driver, CUDA, cuBLASLt, cuDNN) and the ptxbench build that judges.
// Seeds: a verdict with a fresh seed is one sample of a random check, so the cache is consulted
// only when the seed is known before judging — a fixed --seed, or a seed drawn from a pool
// (--seed-pool, correctness/seed_pool.hpp), where a later verdict of the same code that draws
// the same pool seed gets the cached verdict. With fresh seeds (--seed-pool 0 and no --seed) the
// cache is bypassed.
// Never kept: INTERNAL_ERROR, NOT_RUN, TIMEOUT (the machine's load can cause it), verdicts with a
// check "not checked", and anything judged while ptxbench was stopping. A hit keeps the fresh
// record's first four stages and compile figures, takes the rest from the original and says so
// (`cached` in the record). Entries are files published by atomic rename in a folder that several
// processes may share, evicted least-recently-used first beyond the byte budget. Only the trusted
// process reads and writes it.
#pragma once
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/settings.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::eval {

// The cache's byte budget; the least recently used verdicts go beyond it.
inline constexpr std::uint64_t kVerdictCacheBytes = std::uint64_t{1} << 30;

struct VerdictCacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t stores = 0;
  std::uint64_t bypassed = 0;  // fresh seed, or nothing names the GPU: not consulted
  std::uint64_t evictions = 0;
};

// What decides a verdict of the GPU stages.
struct VerdictKey {
  std::string code;
  std::string task;  // task_fingerprint
  arch::Arch arch = arch::Arch::kHopper;
  std::uint64_t input_seed = 0;
  std::string settings;   // verdict_settings_text
  std::string toolchain;  // the record's toolchain after the static stages
  std::string gpu;        // GpuStages::identity()
  std::string judge;      // ptxbench_build_identity()

  std::string text() const;  // the key as one canonical text
};

// The settings that decide a verdict, as one text: sandbox mode, compile timeout and memory,
// correctness rule, racecheck deadline, timed workloads and the unseen policy. Not in it: the
// number of compiles or GPUs, the artefact and cache folders, and the seed setting (the key holds
// the seed the verdict used).
std::string verdict_settings_text(const EvaluationSettings& settings);

// This ptxbench build: its version and the bytes of the running executable and of `worker`
// (the judge's code); computed once per process.
std::string ptxbench_build_identity(const std::filesystem::path& worker = {});

// Whether a finished verdict may be kept (see above).
bool cacheable(const Evaluation& evaluation);

class VerdictCache {
 public:
  // `max_bytes`: the folder's budget; 0 = no limit.
  VerdictCache(std::filesystem::path dir, std::uint64_t max_bytes = kVerdictCacheBytes);

  // The cached verdict laid over `evaluation` (the fresh record of stages 1-4): true on a hit.
  bool apply(const VerdictKey& key, Evaluation& evaluation);
  // Keeps a cacheable verdict (cacheable()); anything else is ignored. A folder that cannot be
  // written costs only the work it would have saved.
  void store(const VerdictKey& key, const Evaluation& evaluation);
  void count_bypass();

  VerdictCacheStats stats() const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path entry_file(const std::string& key_text) const;
  void evict_over_budget();

  std::filesystem::path dir_;
  std::uint64_t max_bytes_;
  mutable std::mutex mutex_;
  VerdictCacheStats stats_;
};

}  // namespace ptxbench::eval
