// The analytic bound of a timed workload (SpeedOfLight in evaluation.hpp): the task's FLOPs at
// the GPU's dense BF16 tensor-core peak at the measured SM clock, and its bytes (every input read
// once, every output written once) at the GPU's HBM bandwidth. Pure.
#pragma once
#include <optional>
#include <string_view>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/eval/evaluation.hpp"

namespace ptxbench::eval {

// Dense BF16 tensor-core FLOPs per SM per clock: 4096 on Hopper (989 TFLOP/s on 132 SMs at
// 1830 MHz), 8192 on Blackwell.
double dense_bf16_flops_per_sm_clock(arch::Arch arch);

// HBM bandwidth in GB/s of a GPU named like the CUDA device ("NVIDIA H200"); nullopt when the
// name is not known (the bound is then the compute bound alone).
std::optional<double> hbm_gbytes_per_s(std::string_view gpu_name);

struct SpeedOfLightInputs {
  double flops = 0;
  double bytes = 0;
  int sm_count = 0;
  double sm_clock_mhz = 0;  // measured, median over the candidate's samples
  arch::Arch arch = arch::Arch::kHopper;
  std::string_view gpu_name;
  double candidate_ms = 0;  // the candidate's median
};

// nullopt when nothing bounds the workload (no SM count or clock, no time).
std::optional<SpeedOfLight> speed_of_light(const SpeedOfLightInputs& in);

}  // namespace ptxbench::eval
