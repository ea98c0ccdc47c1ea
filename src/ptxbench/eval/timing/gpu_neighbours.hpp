// Who else used a GPU while a candidate was timed (docs/gpu-engine.md, "Timing alone"): the
// trusted side asks NVML for the per-process SM utilization samples of the window and keeps the
// processes outside the timing process's tree. It runs in ptxbench itself, which sees the host's
// process ids as NVML reports them (a sandboxed worker would see only its own). NVML ships with
// the driver, so it is loaded at run time; without it nothing is known, and the record says so.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval {

class GpuNeighbours {
 public:
  virtual ~GpuNeighbours() = default;
  // NVML's clock for a window's start (microseconds, as its samples carry them).
  virtual std::uint64_t now() const = 0;
  // The processes other than `own` and its descendants that used the SMs since `since`, as
  // "pid 1234 (name): 37% SM"; an Error when NVML could not say.
  virtual util::Expected<std::vector<std::string>> others_since(std::uint64_t since,
                                                                pid_t own) const = 0;
};

// NVML on the GPU `device` names (an index as nvidia-smi counts, or a GPU-/MIG- UUID; empty: the
// first of CUDA_VISIBLE_DEVICES, else 0); an Error saying why not (no driver library, no device).
util::Expected<std::shared_ptr<GpuNeighbours>> open_gpu_neighbours(const std::string& device);

// The processes below `root` (children, their children, ...) and `root` itself, from /proc.
std::vector<pid_t> process_tree(pid_t root);

}  // namespace ptxbench::eval
