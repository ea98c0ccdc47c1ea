// How a run is cut into shards for a job array: shard I of N takes every N-th task of the run
// (in suite order) with all its models, archs, context levels and samples, so each shard is a
// complete run of its own over a cell group, and the shards together cover the grid once.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/task/task.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::slurm {

struct ShardSpec {
  int index = 0;  // 0-based, as SLURM_ARRAY_TASK_ID
  int count = 1;
};

// "I/N" with 0 <= I < N.
util::Expected<ShardSpec> parse_shard_spec(std::string_view text);

// The tasks of one shard; empty when the run has fewer tasks than shards and this is past them.
std::vector<const task::Task*> shard_tasks(const std::vector<const task::Task*>& tasks,
                                           ShardSpec shard);

// Shards for a run of `task_count` tasks: `requested` when given (at most one per task), else
// one per task.
int shard_count(std::size_t task_count, int requested);

}  // namespace ptxbench::slurm
