// A task as the judge sees it, as one stable text for cache keys: its name and everything the
// verdict reads (axes, tensors, parameters, tolerance with any --correctness-rule applied,
// baseline, requested families, shown workloads, unseen rule), and the bytes of the file it was
// loaded from, so a field a later version reads is never silently left out of a key.
#pragma once
#include <string>

#include "ptxbench/task/task.hpp"

namespace ptxbench::eval {

std::string task_fingerprint(const task::Task& task);

}  // namespace ptxbench::eval
