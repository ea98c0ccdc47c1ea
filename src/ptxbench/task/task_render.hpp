// The task as a model sees it (`ptxbench tasks show NAME`, the task part of a prompt).
#pragma once
#include <optional>
#include <string>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::task {
// With an arch: names the requested instruction families for it and the headline workload.
std::string render_for_model(const Task& task, std::optional<arch::Arch> arch = std::nullopt);
}  // namespace ptxbench::task
