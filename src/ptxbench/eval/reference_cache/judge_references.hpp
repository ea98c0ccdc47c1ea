// The judge's use of the reference cache, kept apart from its GPU code so that the decisions are
// tested on the CPU: per trial, find the entry (a hit) or compute and offer it (a miss), and
// count both for the reply. The GPU code (correctness/gpu/judge_mode.cpp) only moves the bytes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "ptxbench/eval/correctness/correctness_protocol.hpp"
#include "ptxbench/eval/reference_cache/reference_store.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"

namespace ptxbench::eval::reference_cache {

// The sizes of a trial's entry for `job`: its outputs' bytes, and 4 bytes per element of each
// output for the fp32 high-precision reference.
ReferenceShape shape_of(const worker::WorkerJob& job);

class JudgeReferences {
 public:
  explicit JudgeReferences(const worker::WorkerJob& job);

  // Off, or this job's entries would exceed kMaxEntryBytes: nothing is looked up or counted.
  bool enabled() const { return request_.enabled() && fits_; }
  // The trial's cached outputs: a hit, or nullopt and a miss; nothing is counted when off.
  std::optional<ReferenceEntry> find(std::uint64_t trial_seed);
  // Offers the outputs computed after a miss; a folder that cannot take them is ignored.
  void offer(std::uint64_t trial_seed, const ReferenceEntry& entry) const;

  const correctness::ReferenceCacheCounts& counts() const { return counts_; }

 private:
  ReferenceKey key(std::uint64_t trial_seed) const;

  ReferenceCacheRequest request_;
  std::string workload_;
  ReferenceShape shape_;
  bool fits_ = false;
  correctness::ReferenceCacheCounts counts_;
};

}  // namespace ptxbench::eval::reference_cache
