// The trusted side's driver of the executed-instruction probe: one `ptxbench-worker probe`
// process (probe_protocol.hpp says what it is asked and what it answers).
#pragma once
#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "ptxbench/eval/proof/probe_protocol.hpp"
#include "ptxbench/eval/worker/worker_client.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {

struct ProbeInvocation {
  std::vector<std::string> worker_argv;  // e.g. {"/path/ptxbench-worker", "probe"}
  worker::WorkerJob job;                 // the probed workload; its request is set here
  std::filesystem::path cubin;
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::filesystem::path> read_paths;  // folders it reads (a sandbox binds them)
};

// One probe process. Whatever goes wrong comes back as a report with `error`; `cost` (if given)
// gets what the process cost.
ProbeReport run_probe(util::ProcessRunner& runner, const ProbeInvocation& invocation,
                      worker::ProcessCost* cost = nullptr);

}  // namespace ptxbench::eval
