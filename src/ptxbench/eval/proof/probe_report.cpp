#include "ptxbench/eval/proof/probe_report.hpp"

#include <fmt/format.h>

#include "ptxbench/eval/worker/worker_reply.hpp"

namespace ptxbench::eval {
namespace {

using nlohmann::json;

// Reads `key` as T when present and of the right type; false when present but wrong.
template <class T>
bool read_field(const json& object, const char* key, T& out) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return true;
  try {
    out = it->get<T>();
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

util::Expected<ProbeRecord> record_from_json(const json& item) {
  if (!item.is_object()) return util::make_error("a record is not an object");
  ProbeRecord record;
  if (!read_field(item, "crc", record.cubin_crc) ||
      !read_field(item, "function", record.function) || !read_field(item, "pc", record.pc_offset) ||
      !read_field(item, "counts", record.counts)) {
    return util::make_error("a record has a field of the wrong type");
  }
  return record;
}

}  // namespace

void set_probe_request(worker::WorkerJob& job, const ProbeRequest& request) {
  if (!job.extra.is_object()) job.extra = json::object();
  job.extra["probe"] = json{{"cubin", request.cubin.string()}};
}

util::Expected<ProbeRequest> probe_request_from(const worker::WorkerJob& job) {
  const auto it = job.extra.find("probe");
  if (it == job.extra.end() || !it->is_object()) {
    return util::make_error("the job has no probe request");
  }
  ProbeRequest request;
  std::string cubin;
  if (!read_field(*it, "cubin", cubin)) {
    return util::make_error("the probe request has a field of the wrong type");
  }
  request.cubin = cubin;
  return request;
}

json to_json(const ProbeReport& report) {
  json records = json::array();
  for (const ProbeRecord& r : report.records) {
    records.push_back(json{
        {"crc", r.cubin_crc}, {"function", r.function}, {"pc", r.pc_offset}, {"counts", r.counts}});
  }
  json modules = json::array();
  for (const ProbeModule& m : report.modules) {
    modules.push_back(json{{"crc", m.crc}, {"bytes", m.bytes}, {"candidate", m.candidate}});
  }
  json out{{"kernel", report.kernel},
           {"launched", report.launched},
           {"launches", report.launches},
           {"graph_launches", report.graph_launches},
           {"launched_functions", report.launched_functions},
           {"modules", modules},
           {"metrics", report.metrics},
           {"records", records},
           {"dropped_records", report.dropped_records},
           {"error", report.error}};
  if (report.candidate_crc) out["candidate_crc"] = *report.candidate_crc;
  return out;
}

util::Expected<ProbeReport> probe_report_from_json(const json& body) {
  if (!body.is_object()) return util::make_error("the probe report is not an object");
  ProbeReport report;
  if (!read_field(body, "kernel", report.kernel) ||
      !read_field(body, "launched", report.launched) ||
      !read_field(body, "launches", report.launches) ||
      !read_field(body, "graph_launches", report.graph_launches) ||
      !read_field(body, "launched_functions", report.launched_functions) ||
      !read_field(body, "metrics", report.metrics) ||
      !read_field(body, "dropped_records", report.dropped_records) ||
      !read_field(body, "error", report.error)) {
    return util::make_error("the probe report has a field of the wrong type");
  }
  if (const auto it = body.find("candidate_crc"); it != body.end() && !it->is_null()) {
    std::uint32_t crc = 0;
    if (!read_field(body, "candidate_crc", crc)) {
      return util::make_error("the probe report's candidate_crc is not a number");
    }
    report.candidate_crc = crc;
  }
  if (const auto it = body.find("modules"); it != body.end() && it->is_array()) {
    for (const json& item : *it) {
      ProbeModule module;
      if (!item.is_object() || !read_field(item, "crc", module.crc) ||
          !read_field(item, "bytes", module.bytes) ||
          !read_field(item, "candidate", module.candidate)) {
        return util::make_error("a module of the probe report is malformed");
      }
      report.modules.push_back(module);
    }
  }
  if (const auto it = body.find("records"); it != body.end() && it->is_array()) {
    for (const json& item : *it) {
      auto record = record_from_json(item);
      if (!record) return record.error();
      if (record->counts.size() != report.metrics.size()) {
        return util::make_error("a record's counts do not match the metrics");
      }
      report.records.push_back(std::move(*record));
    }
  }
  return report;
}

ProbeReport run_probe(util::ProcessRunner& runner, const ProbeInvocation& invocation) {
  worker::WorkerJob job = invocation.job;
  set_probe_request(job, ProbeRequest{.cubin = invocation.cubin});
  util::ProcessSpec spec;
  spec.argv = invocation.worker_argv;
  spec.stdin_text = worker::to_json(job).dump();
  spec.timeout = invocation.timeout;
  spec.env = invocation.env;
  spec.output_cap_bytes = 64u << 20;  // a record per executed pc: a few MB for a large kernel
  const util::ProcessResult result = runner.run(spec);

  ProbeReport failed;
  if (!result.started) {
    failed.error = "the probe could not start: " + result.spawn_error;
    return failed;
  }
  if (result.timed_out || result.stdout_truncated) {
    failed.error = "the probe " + result.describe_end() +
                   (result.stdout_truncated ? " (its output was cut)" : "");
    return failed;
  }
  const auto reply = worker::parse_reply(result.stdout_text);
  if (!reply) {
    failed.error = fmt::format("the probe {}: {}", result.describe_end(), reply.error().message);
    return failed;
  }
  if (reply->status != worker::ReplyStatus::kOk) {
    failed.error =
        fmt::format("the probe answered {}: {}", worker::to_string(reply->status), reply->message);
    return failed;
  }
  auto report = probe_report_from_json(reply->body);
  if (!report) {
    failed.error = report.error().message;
    return failed;
  }
  return std::move(*report);
}

}  // namespace ptxbench::eval
