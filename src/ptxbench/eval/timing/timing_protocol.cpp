#include "ptxbench/eval/timing/timing_protocol.hpp"

#include <array>

#include "ptxbench/eval/worker/protocol_fields.hpp"

namespace ptxbench::eval::timing {
namespace {

using nlohmann::json;
using worker::optional_or;
using worker::read_array;
using worker::read_member;
using worker::required;

TimingStats stats_from(const json& j) {
  return TimingStats{.median_ms = required<double>(j, "median_ms"),
                     .q1_ms = required<double>(j, "q1_ms"),
                     .q3_ms = required<double>(j, "q3_ms"),
                     .min_ms = optional_or(j, "min_ms", 0.0),
                     .max_ms = optional_or(j, "max_ms", 0.0),
                     .samples = required<int>(j, "samples"),
                     .dropped_throttled = optional_or(j, "dropped_throttled", 0),
                     .relative_noise = optional_or(j, "relative_noise", 0.0),
                     .sm_clock_mhz = optional_or(j, "sm_clock_mhz", 0.0),
                     .kernels_per_call = optional_or(j, "kernels_per_call", 0),
                     .converged = optional_or(j, "converged", false)};
}

json to_json(const TimingSide& side) {
  json out = timing::to_json(side.stats);
  out["event_median_ms"] = side.event_median_ms;
  out["power_capped_samples"] = side.power_capped_samples;
  out["samples_without_gpu_work"] = side.samples_without_gpu_work;
  return out;
}

TimingSide side_from(const json& j) {
  return TimingSide{.stats = stats_from(j),
                    .event_median_ms = optional_or(j, "event_median_ms", 0.0),
                    .power_capped_samples = optional_or(j, "power_capped_samples", 0),
                    .samples_without_gpu_work = optional_or(j, "samples_without_gpu_work", 0)};
}

json to_json(const worker::StreamSummary& s) {
  return json{{"caller_stream_id", s.caller_stream_id},
              {"other_stream_ids", s.other_stream_ids},
              {"kernels", s.kernels},
              {"memory_operations", s.memory_operations},
              {"background_launches", s.background_launches},
              {"kernel_names", s.kernel_names}};
}

worker::StreamSummary streams_from(const json& j) {
  return worker::StreamSummary{
      .caller_stream_id = required<std::uint32_t>(j, "caller_stream_id"),
      .other_stream_ids = required<std::vector<std::uint32_t>>(j, "other_stream_ids"),
      .kernels = required<int>(j, "kernels"),
      .memory_operations = required<int>(j, "memory_operations"),
      .background_launches = required<int>(j, "background_launches"),
      .kernel_names = required<std::vector<std::string>>(j, "kernel_names")};
}

json to_json(const LaunchRecord& l) {
  const LaunchResources& r = l.resources;
  return json{{"name", l.name},
              {"launches", r.launches},
              {"registers_per_thread", r.registers_per_thread},
              {"static_shared_bytes", r.static_shared_bytes},
              {"dynamic_shared_bytes", r.dynamic_shared_bytes},
              {"grid", r.grid},
              {"block", r.block},
              {"cluster", r.cluster}};
}

LaunchRecord launch_from(const json& j) {
  using Dims = std::array<int, 3>;
  return LaunchRecord{
      .name = required<std::string>(j, "name"),
      .resources = LaunchResources{.launches = required<std::int64_t>(j, "launches"),
                                   .registers_per_thread = required<int>(j, "registers_per_thread"),
                                   .static_shared_bytes = required<int>(j, "static_shared_bytes"),
                                   .dynamic_shared_bytes = required<int>(j, "dynamic_shared_bytes"),
                                   .grid = required<Dims>(j, "grid"),
                                   .block = required<Dims>(j, "block"),
                                   .cluster = required<Dims>(j, "cluster")}};
}

json to_json(const TimedOutputCheck& c) {
  json out = worker::to_json(c.totals);
  out["name"] = c.name;
  out["passed"] = c.passed;
  return out;
}

TimedOutputCheck output_check_from(const json& j) {
  required<std::int64_t>(j, "elements");
  return TimedOutputCheck{.name = required<std::string>(j, "name"),
                          .totals = worker::totals_from_json(j),
                          .passed = required<bool>(j, "passed")};
}

}  // namespace

json to_json(const TimingStats& t) {
  return json{{"median_ms", t.median_ms},
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

json to_json(const TimingRequest& request) {
  const TimingOptions& o = request.options;
  return json{{"min_samples", o.min_samples},
              {"max_samples", o.max_samples},
              {"target_relative_noise", o.target_relative_noise},
              {"max_seconds", o.max_seconds},
              {"throttle_clock_ratio", o.throttle_clock_ratio}};
}

util::Expected<TimingRequest> timing_request_from_json(const json& j) {
  return worker::parse_protocol("the timing request", [&] {
    TimingOptions o;
    o.min_samples = required<int>(j, "min_samples");
    o.max_samples = required<int>(j, "max_samples");
    o.target_relative_noise = required<double>(j, "target_relative_noise");
    o.max_seconds = required<double>(j, "max_seconds");
    o.throttle_clock_ratio = required<double>(j, "throttle_clock_ratio");
    if (o.min_samples < 1 || o.max_samples < o.min_samples) {
      throw worker::ProtocolError("min_samples/max_samples: need 1 <= min_samples <= max_samples");
    }
    return TimingRequest{.options = o};
  });
}

json to_json(const TimingReply& r) {
  json launches = json::array();
  for (const auto& l : r.launches) launches.push_back(to_json(l));
  json checks = json::array();
  for (const auto& c : r.output_checks) checks.push_back(to_json(c));
  return json{{"candidate", to_json(r.candidate)},
              {"baseline", to_json(r.baseline)},
              {"baseline_description", r.baseline_description},
              {"kernels", r.kernels},
              {"foreign_kernels", r.foreign_kernels},
              {"streams", to_json(r.streams)},
              {"blocking_kernel", r.blocking_kernel},
              {"rounds", r.rounds},
              {"max_sm_clock_mhz", r.max_sm_clock_mhz},
              {"clocks_read", r.clocks_read},
              {"l2_flush_bytes", r.l2_flush_bytes},
              {"launches", std::move(launches)},
              {"l2_persistence", r.l2_persistence},
              {"wall_seconds", r.wall_seconds},
              {"output_checks", std::move(checks)},
              {"outputs_match", r.outputs_match},
              {"host_memory_budget_bytes", r.host_memory_budget_bytes}};
}

util::Expected<TimingReply> timing_reply_from_json(const json& j) {
  return worker::parse_protocol("the timing reply", [&] {
    TimingReply r;
    r.candidate = read_member(j, "candidate", side_from);
    r.baseline = read_member(j, "baseline", side_from);
    r.baseline_description = optional_or(j, "baseline_description", std::string());
    r.kernels = optional_or(j, "kernels", std::vector<std::string>{});
    r.foreign_kernels = optional_or(j, "foreign_kernels", std::vector<std::string>{});
    if (j.contains("streams")) r.streams = read_member(j, "streams", streams_from);
    r.blocking_kernel = required<bool>(j, "blocking_kernel");
    r.rounds = optional_or(j, "rounds", 0);
    r.max_sm_clock_mhz = optional_or(j, "max_sm_clock_mhz", 0);
    r.clocks_read = optional_or(j, "clocks_read", false);
    r.l2_flush_bytes = optional_or(j, "l2_flush_bytes", std::uint64_t{0});
    if (j.contains("launches")) r.launches = read_array(j, "launches", launch_from);
    r.l2_persistence = optional_or(j, "l2_persistence", std::string());
    r.wall_seconds = optional_or(j, "wall_seconds", 0.0);
    if (j.contains("output_checks"))
      r.output_checks = read_array(j, "output_checks", output_check_from);
    r.outputs_match = required<bool>(j, "outputs_match");
    r.host_memory_budget_bytes = optional_or(j, "host_memory_budget_bytes", std::uint64_t{0});
    return r;
  });
}

}  // namespace ptxbench::eval::timing
