// `ptxbench merge`: shard run folders into one run. Every shard must be a run of the same
// configuration but for its tasks (models, archs, contexts, samples, turns, history, evaluation
// settings); a mismatch is refused before anything is written. Trajectories are copied in;
// where the merged run already has one, the one with more completed turns (a finished one over
// a running one at equal turns) is kept, so merging again after shards resumed picks up their
// progress and merging twice changes nothing.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::slurm {

struct MergeSummary {
  std::size_t shards = 0;
  std::size_t added = 0;      // trajectories new to the merged run
  std::size_t updated = 0;    // replaced by a shard's more complete one
  std::size_t unchanged = 0;  // the merged run's was as complete already
};

util::Expected<MergeSummary> merge_runs(const std::vector<std::filesystem::path>& shards,
                                        const std::filesystem::path& out);

}  // namespace ptxbench::slurm
