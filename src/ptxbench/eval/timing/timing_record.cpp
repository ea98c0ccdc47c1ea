#include "ptxbench/eval/timing/timing_record.hpp"

namespace ptxbench::eval::worker {

nlohmann::json to_json(const TimingStats& t) {
  return nlohmann::json{{"median_ms", t.median_ms},
                        {"q1_ms", t.q1_ms},
                        {"q3_ms", t.q3_ms},
                        {"min_ms", t.min_ms},
                        {"max_ms", t.max_ms},
                        {"samples", t.samples},
                        {"dropped_throttled", t.dropped_throttled},
                        {"relative_noise", t.relative_noise},
                        {"sm_clock_mhz", t.sm_clock_mhz},
                        {"kernels_per_call", t.kernels_per_call},
                        {"converged", t.converged}};
}

std::optional<TimingStats> timing_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  try {
    TimingStats t;
    t.median_ms = j.at("median_ms").get<double>();
    t.q1_ms = j.value("q1_ms", 0.0);
    t.q3_ms = j.value("q3_ms", 0.0);
    t.min_ms = j.value("min_ms", 0.0);
    t.max_ms = j.value("max_ms", 0.0);
    t.samples = j.at("samples").get<int>();
    t.dropped_throttled = j.value("dropped_throttled", 0);
    t.relative_noise = j.value("relative_noise", 0.0);
    t.sm_clock_mhz = j.value("sm_clock_mhz", 0.0);
    t.kernels_per_call = j.value("kernels_per_call", 0);
    t.converged = j.value("converged", false);
    return t;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

TimingStats make_timing_stats(const SampleSummary& s, int dropped_throttled, double sm_clock_mhz,
                              int kernels_per_call, bool converged) {
  return TimingStats{.median_ms = s.median,
                     .q1_ms = s.q1,
                     .q3_ms = s.q3,
                     .min_ms = s.min,
                     .max_ms = s.max,
                     .samples = s.count,
                     .dropped_throttled = dropped_throttled,
                     .relative_noise = s.relative_noise,
                     .sm_clock_mhz = sm_clock_mhz,
                     .kernels_per_call = kernels_per_call,
                     .converged = converged};
}

}  // namespace ptxbench::eval::worker
