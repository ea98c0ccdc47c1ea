// The task prompt: the task as `ptxbench tasks show` renders it for the arch, the headline
// workload that is timed, the requested instruction families, and how the answer is judged.
#pragma once
#include <string>
#include <string_view>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::prompt {

std::string build_task_prompt(const task::Task& task, arch::Arch arch);

// The PTX a SASS instruction family comes from, for people and models:
// "GMMA" -> "wgmma.mma_async (SASS HGMMA)". Unknown families are returned as they are.
std::string describe_family(std::string_view family);

}  // namespace ptxbench::prompt
