// A task's unseen workloads: sizes the prompt never shows, made by one rule from the task's
// "unseen" bounds, so that a kernel which hard-codes the shown sizes, or handles only multiples
// of its tile, is caught. docs/task-format.md states the rule; in short, per var axis A with
// bounds [lo, hi], shown values V and headline value h (the other var axes at the headline's
// values):
//   lo                                 the smallest size (a one-row tail: M=1)
//   the geometric mean of h and the largest shown value below h, made ragged
//                                      (between the shown sizes)
//   h - 1                              one short of the timed size (a ragged last tile)
//   hi                                 the largest size (beyond the shown ones when above them)
// each rounded down to the axis's declared multiple_of (when it has one), kept within [lo, hi],
// without shown values or repeats. "Ragged" means not a multiple of 64 (one is added to a value
// that is, unless the axis declares a multiple).
#pragma once
#include <cstdint>
#include <vector>

#include "ptxbench/task/task.hpp"

namespace ptxbench::task {

std::vector<Workload> unseen_workloads(const Task& task);

// The values of one axis the rule makes (sorted), given its shown values and headline value.
std::vector<std::int64_t> unseen_values(std::int64_t lo, std::int64_t hi,
                                        const std::vector<std::int64_t>& shown,
                                        std::int64_t headline,
                                        std::optional<std::int64_t> multiple_of);

}  // namespace ptxbench::task
