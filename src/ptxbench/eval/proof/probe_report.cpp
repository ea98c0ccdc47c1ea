#include "ptxbench/eval/proof/probe_report.hpp"

#include <fmt/format.h>

#include "ptxbench/eval/worker/worker_reply.hpp"

namespace ptxbench::eval {

ProbeReport run_probe(util::ProcessRunner& runner, const ProbeInvocation& invocation,
                      worker::ProcessCost* cost) {
  worker::WorkerJob job = invocation.job;
  job.request = ProbeRequest{.cubin = invocation.cubin};
  util::ProcessSpec spec;
  spec.argv = invocation.worker_argv;
  spec.stdin_text = worker::to_json(job).dump();
  spec.timeout = invocation.timeout;
  spec.env = invocation.env;
  spec.read_paths = invocation.read_paths;
  spec.output_cap_bytes = 64u << 20;  // a record per executed pc: a few MB for a large kernel
  const util::ProcessResult result = runner.run(spec);
  if (cost != nullptr) *cost = worker::process_cost(result);

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
