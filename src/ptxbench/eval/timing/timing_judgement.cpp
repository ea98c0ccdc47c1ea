#include "ptxbench/eval/timing/timing_judgement.hpp"

#include <fmt/format.h>

#include "ptxbench/eval/timing/timing_record.hpp"

namespace ptxbench::eval::worker {
namespace {

std::string describe(const TimingStats& t) {
  return fmt::format(
      "{:.4f} ms (IQR {:.4f}-{:.4f}, {} samples{}, {:.0f} MHz)", t.median_ms, t.q1_ms, t.q3_ms,
      t.samples,
      t.dropped_throttled > 0 ? fmt::format(", {} throttled dropped", t.dropped_throttled) : "",
      t.sm_clock_mhz);
}

std::vector<std::pair<std::string, LaunchResources>> launches_from_json(const nlohmann::json& j) {
  std::vector<std::pair<std::string, LaunchResources>> out;
  if (!j.is_array()) return out;
  for (const auto& l : j) {
    if (!l.is_object() || !l.contains("name") || !l["name"].is_string()) continue;
    try {
      LaunchResources r;
      r.launches = l.value("launches", std::int64_t{0});
      r.registers_per_thread = l.value("registers_per_thread", 0);
      r.static_shared_bytes = l.value("static_shared_bytes", 0);
      r.dynamic_shared_bytes = l.value("dynamic_shared_bytes", 0);
      r.grid = l.value("grid", r.grid);
      r.block = l.value("block", r.block);
      r.cluster = l.value("cluster", r.cluster);
      out.emplace_back(l["name"].get<std::string>(), r);
    } catch (const nlohmann::json::exception&) {
      continue;  // an untrusted process's malformed entry: ignored, never fatal
    }
  }
  return out;
}

}  // namespace

TimingJudgement judge_timing(const nlohmann::json& reply, double task_flops) {
  TimingJudgement out;
  if (!reply.is_object()) {
    return {Verdict::kInternalError, "the timing reply is not an object", {}, {}, {}, {}};
  }
  out.candidate = timing_from_json(reply.value("candidate", nlohmann::json()));
  out.baseline = timing_from_json(reply.value("baseline", nlohmann::json()));
  if (!out.candidate || !out.baseline || out.candidate->samples == 0 ||
      out.baseline->samples == 0 || out.candidate->median_ms <= 0) {
    out.verdict = Verdict::kInternalError;
    out.message = "the timing reply holds no usable samples";
    return out;
  }
  out.speedup = out.baseline->median_ms / out.candidate->median_ms;
  out.launches = launches_from_json(reply.value("launches", nlohmann::json()));
  if (task_flops > 0) out.tflops = task_flops / (out.candidate->median_ms * 1e-3) / 1e12;
  if (!reply.value("outputs_match", false)) {
    out.verdict = Verdict::kIncorrectNumerical;
    out.message =
        "the outputs of the timed calls differ from the baseline's on the same inputs (work "
        "skipped or cached between calls?)";
    return out;
  }
  out.message = fmt::format("candidate {} vs baseline {}: speedup {:.3f}x{}",
                            describe(*out.candidate), describe(*out.baseline), *out.speedup,
                            out.tflops ? fmt::format(", {:.1f} TFLOP/s", *out.tflops) : "");
  if (!reply.value("blocking_kernel", true)) {
    out.message +=
        "; run() waits for the GPU itself, so calls were timed without the blocking kernel";
  }
  return out;
}

}  // namespace ptxbench::eval::worker
