// ptxbench-worker: the process that runs candidate kernels on the GPU, one mode per
// invocation (eval/worker/gpu/worker_modes.hpp). The job comes as JSON on stdin (or --job FILE);
// the answer is one reply line on stdout. Untrusted modes (candidate, time, probe) run code from a
// model: the parent gives each a deadline and its own process group.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "ptxbench/eval/correctness/gpu/judge_server_mode.hpp"
#include "ptxbench/eval/correctness/gpu/trials_mode.hpp"
#include "ptxbench/eval/proof/gpu/probe_mode.hpp"
#include "ptxbench/eval/worker/gpu/worker_modes.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/util/fs.hpp"

namespace {

using ptxbench::eval::worker::ReplyStatus;
namespace gpu = ptxbench::eval::gpu;

ptxbench::util::Expected<std::string> read_jobs_text(const std::string& job_file) {
  if (!job_file.empty()) return ptxbench::util::read_file(job_file);
  return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

int run_mode(const std::string& mode, const std::string& job_file, bool serve) {
  if (mode == "info") return gpu::run_info_mode();
  // A served process reads its job as the first line and keeps stdin for what follows.
  ptxbench::util::Expected<std::string> text = std::string();
  if (serve) {
    if (!std::getline(std::cin, *text)) *text = "";
  } else {
    text = read_jobs_text(job_file);
  }
  if (!text) {
    gpu::print_reply(ReplyStatus::kInternalError, text.error().message);
    return 2;
  }
  auto jobs = ptxbench::eval::worker::parse_jobs(text.value());
  if (!jobs) {
    gpu::print_reply(ReplyStatus::kInternalError, jobs.error().message);
    return 2;
  }
  for (const auto& job : jobs.value()) {
    if (ptxbench::eval::worker::mode_of(job.request) != mode) {
      gpu::print_reply(ReplyStatus::kInternalError,
                       "a job's request is for the " +
                           std::string(ptxbench::eval::worker::mode_of(job.request)) +
                           " mode, not " + mode);
      return 2;
    }
  }
  if (mode == "candidate") return gpu::run_candidate_mode(jobs.value());
  if (mode == "judge") return gpu::run_judge_mode(jobs.value());
  if (mode == "time") return gpu::run_timing_mode(jobs->front(), serve);
  gpu::print_reply(ReplyStatus::kInternalError, "unknown worker mode '" + mode + "'");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  gpu::reserve_reply_channel();
  // The probe parses its own arguments (eval/proof/gpu/probe_mode.hpp).
  if (argc >= 2 && std::string(argv[1]) == "probe") return gpu::run_probe_mode(argc, argv);
  CLI::App app{"ptxbench-worker: runs candidate kernels on the GPU for ptxbench"};
  std::string mode;
  std::string job_file;
  int control_fd = -1;
  std::uint64_t reference_memory = 0;
  app.add_option("mode", mode, "info | candidate | judge | time | probe | judge-server | trials")
      ->required()
      ->check(
          CLI::IsMember({"info", "candidate", "judge", "time", "probe", "judge-server", "trials"}));
  app.add_option("--job", job_file, "read the job JSON from this file instead of stdin");
  app.add_option("--control-fd", control_fd, "judge-server: the control socket it inherited");
  app.add_option("--reference-memory", reference_memory,
                 "judge-server: bytes of reference outputs it may keep on the device");
  bool serve = false;
  app.add_flag("--serve", serve,
               "time: read the job as the first line of stdin, answer \"ready\" once set up, "
               "and time after the line \"go\"");
  CLI11_PARSE(app, argc, argv);
  try {
    if (mode == "judge-server") {
      if (control_fd < 0) {
        gpu::print_reply(ReplyStatus::kInternalError, "judge-server needs --control-fd");
        return 2;
      }
      return gpu::run_judge_server_mode(control_fd, reference_memory);
    }
    if (mode == "trials") return gpu::run_trials_mode();
    return run_mode(mode, job_file, serve);
  } catch (const std::exception& e) {
    gpu::print_reply(ReplyStatus::kInternalError, e.what());
    return 2;
  }
}
