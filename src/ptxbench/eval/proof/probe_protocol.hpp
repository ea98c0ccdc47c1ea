// The executed-instruction probe's protocol with ptxbench-worker: `worker probe` (untrusted)
// gets one job with a ProbeRequest and answers a ProbeReport in its reply body. The probe
// observes the first kernel function the candidate's run() launches (this CUPTI reports one
// function per process; see eval/proof/gpu/probe_mode.hpp) and lists every function run()
// launched. This file is the one place both are written and read.
#pragma once
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval {

struct ProbeRequest {
  std::filesystem::path cubin;  // the candidate's cubin (its CRC identifies its records)
};
nlohmann::json to_json(const ProbeRequest& request);
util::Expected<ProbeRequest> probe_request_from_json(const nlohmann::json& json);

struct ProbeRecord {
  std::uint32_t cubin_crc = 0;
  std::string function;  // mangled
  std::uint32_t pc_offset = 0;
  std::vector<std::int64_t> counts;  // per ProbeReport::metrics
};

struct ProbeModule {
  std::uint32_t crc = 0;
  std::uint64_t bytes = 0;
  bool candidate = false;  // the candidate's cubin, byte for byte
};

struct ProbeReport {
  std::string kernel;      // the observed function: the first kernel run() launched (mangled)
  bool launched = false;   // run() launched a kernel
  int launches = 0;        // launches of the observed function during the call
  int graph_launches = 0;  // CUDA graph launches: kernels inside are not seen by name
  std::vector<std::string> launched_functions;  // distinct, in first-launch order
  std::optional<std::uint32_t> candidate_crc;   // of the cubin file named in the request
  std::vector<ProbeModule> modules;             // modules loaded in the process
  std::vector<std::string> metrics;
  std::vector<ProbeRecord> records;
  std::uint64_t dropped_records = 0;
  std::string error;  // no evidence: the candidate failed, the probe failed, or no reply
};
nlohmann::json to_json(const ProbeReport& report);
// From a reply body; never throws on malformed input.
util::Expected<ProbeReport> probe_report_from_json(const nlohmann::json& body);

}  // namespace ptxbench::eval
