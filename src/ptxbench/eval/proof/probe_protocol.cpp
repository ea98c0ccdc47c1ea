#include "ptxbench/eval/proof/probe_protocol.hpp"

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

json to_json(const ProbeRequest& request) {
  return json{{"cubin", request.cubin.string()}};
}

util::Expected<ProbeRequest> probe_request_from_json(const json& j) {
  if (!j.is_object()) return util::make_error("the probe request is not an object");
  std::string cubin;
  if (!j.contains("cubin") || !read_field(j, "cubin", cubin)) {
    return util::make_error("the probe request: cubin: missing or not a string");
  }
  return ProbeRequest{.cubin = cubin};
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

}  // namespace ptxbench::eval
