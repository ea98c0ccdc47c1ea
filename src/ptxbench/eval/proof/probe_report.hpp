// The protocol of the executed-instruction probe: what `ptxbench-worker probe` is asked (a
// ProbeRequest in the job's `extra`) and what it answers (a ProbeReport in its reply body), and
// the trusted side's driver that runs the probe process. The probe observes the first kernel
// function the candidate's run() launches (this CUPTI reports one function per process; see
// eval/proof/gpu/probe_mode.hpp) and lists every function run() launched.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/util/expected.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {

struct ProbeRequest {
  std::filesystem::path cubin;  // the candidate's cubin (its CRC identifies its records)
};
// The job's `extra` carries the request under "probe".
void set_probe_request(worker::WorkerJob& job, const ProbeRequest& request);
util::Expected<ProbeRequest> probe_request_from(const worker::WorkerJob& job);

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

struct ProbeInvocation {
  std::vector<std::string> worker_argv;  // e.g. {"/path/ptxbench-worker", "probe"}
  worker::WorkerJob job;                 // the probed workload; the request is added to it
  std::filesystem::path cubin;
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  std::vector<std::pair<std::string, std::string>> env;
};

// One probe process. Whatever goes wrong comes back as a report with `error`.
ProbeReport run_probe(util::ProcessRunner& runner, const ProbeInvocation& invocation);

}  // namespace ptxbench::eval
