// One trajectory as the viewer shows it: the prompt (folded, with its context level and size),
// then every turn: the reply with the extracted code highlighted, the diff against the previous
// turn's code, the compile log, the feedback exactly as the model saw it, the verdict with every
// stage's status and time, the executed instruction families (counts, FLOP share), the kernels
// as compiled and as launched, the workloads' speedup and speed-of-light fraction, tokens and
// cost.
#pragma once
#include <string>
#include <string_view>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/report/view/index_item.hpp"

namespace ptxbench::report::view {

// The page's HTML; back_href leads to the index (relative to the page).
std::string trajectory_page(const agent::Trajectory& trajectory, std::string_view run_label,
                            std::string_view back_href);

// Its index row (page left for the caller to set).
IndexItem trajectory_item(const agent::Trajectory& trajectory, std::string_view run_label);

}  // namespace ptxbench::report::view
