#include "ptxbench/eval/timing/speed_of_light.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace ptxbench::eval {

double dense_bf16_flops_per_sm_clock(arch::Arch arch) {
  return arch == arch::Arch::kBlackwell ? 8192.0 : 4096.0;
}

std::optional<double> hbm_gbytes_per_s(std::string_view gpu_name) {
  // The vendors' figures; the longer name first where one contains another.
  static constexpr std::array<std::pair<std::string_view, double>, 7> kKnown{{
      {"H200", 4800},
      {"GH200", 4000},
      {"H100 NVL", 3900},
      {"H100 PCIe", 2000},
      {"H100", 3350},
      {"B200", 8000},
      {"B300", 8000},
  }};
  for (const auto& [name, bandwidth] : kKnown) {
    if (gpu_name.find(name) != std::string_view::npos) return bandwidth;
  }
  return std::nullopt;
}

std::optional<SpeedOfLight> speed_of_light(const SpeedOfLightInputs& in) {
  if (in.sm_count <= 0 || in.sm_clock_mhz <= 0 || in.candidate_ms <= 0 || in.flops <= 0)
    return std::nullopt;
  SpeedOfLight s;
  s.flops = in.flops;
  s.bytes = in.bytes;
  s.sm_clock_mhz = in.sm_clock_mhz;
  s.peak_tflops =
      dense_bf16_flops_per_sm_clock(in.arch) * in.sm_count * in.sm_clock_mhz * 1e6 / 1e12;
  s.compute_bound_ms = in.flops / (s.peak_tflops * 1e12) * 1e3;
  if (auto bandwidth = hbm_gbytes_per_s(in.gpu_name); bandwidth && in.bytes > 0) {
    s.hbm_gbytes_per_s = *bandwidth;
    s.memory_bound_ms = in.bytes / (*bandwidth * 1e9) * 1e3;
  }
  s.bound_ms = std::max(s.compute_bound_ms, s.memory_bound_ms);
  s.fraction = s.bound_ms / in.candidate_ms;
  return s;
}

}  // namespace ptxbench::eval
