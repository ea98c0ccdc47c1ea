// The warm judge's process (judge_server_mode.cpp): serves the control socket `control_fd` until
// ptxbench closes it; keeps up to `reference_bytes` of reference outputs in device memory.
#pragma once
#include <cstdint>

namespace ptxbench::eval::gpu {

int run_judge_server_mode(int control_fd, std::uint64_t reference_bytes);

}  // namespace ptxbench::eval::gpu
