// A stand-in for ptxbench-worker that speaks its protocol without a GPU. What it does depends on
// the candidate library's file name (its stem), so tests can play every way a worker ends:
//   pass, wrong (outputs off), unwritten (outputs still NaN), modify (changes input 0),
//   raise (run() raised), crash (SIGSEGV), abort, hang, garbage (no reply line), exit (exit 3
//   without a reply), foreign (timing sees a library kernel), cached (timed outputs differ),
//   irreproducible (the judge's inputs differ). "BEHAVIOUR@WORKLOAD" misbehaves in timing only
//   on that workload's call. A timed candidate takes 1 + M/8 ms (M: input 0's rows), the
//   baseline 1 ms. With FAKE_WORKER_LOG set, each call appends "MODE WORKLOAD..." to that file.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>

#include "ptxbench/eval/worker/exchange.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/eval/worker/worker_reply.hpp"

namespace {

using namespace ptxbench::eval::worker;
using nlohmann::json;

void reply(ReplyStatus status, const std::string& message, json body = json::object()) {
  std::fputs(format_reply(status, message, std::move(body)).c_str(), stdout);
}

json hashes(const WorkerJob& job, bool modified) {
  json out = json::array();
  for (std::size_t i = 0; i < job.inputs.size(); ++i) {
    out.push_back("h" + std::to_string(i) + (modified && i == 0 ? "-changed" : ""));
  }
  return out;
}

void misbehave(const std::string& behaviour) {
  if (behaviour == "crash") std::raise(SIGSEGV);
  if (behaviour == "abort") std::abort();
  if (behaviour == "hang") {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (behaviour == "garbage") {
    std::puts("\x01\x02 PTXBENCH-WORKER-REPLY {\"status\": ");
    std::exit(0);
  }
  if (behaviour == "exit") std::exit(3);
}

int candidate(const std::vector<WorkerJob>& jobs, const std::string& behaviour) {
  std::puts("the candidate may print anything");
  misbehave(behaviour);
  if (behaviour == "raise") {
    reply(ReplyStatus::kRuntimeError,
          "run() on workload " + jobs[0].workload + " (trial 1) raised: boom");
    return 0;
  }
  unsigned char fill = behaviour == "wrong" ? 1 : behaviour == "unwritten" ? 0xff : 0;
  json body{{"jobs", json::array()}};
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    json trials = json::array();
    for (int t = 0; t < jobs[j].trials; ++t) {
      for (const auto& out : jobs[j].outputs) {
        std::ofstream file(exchange_file(jobs[j].exchange_dir, j, t, out.name), std::ios::binary);
        std::string bytes(out.bytes(), static_cast<char>(fill));
        file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      }
      trials.push_back({{"trial", t},
                        {"input_hashes_before", hashes(jobs[j], false)},
                        {"input_hashes_after", hashes(jobs[j], behaviour == "modify")}});
    }
    body["jobs"].push_back({{"workload", jobs[j].workload}, {"trials", trials}});
  }
  reply(ReplyStatus::kOk, "", body);
  return 0;
}

int judge(const std::vector<WorkerJob>& jobs, const std::string& behaviour) {
  json body{{"jobs", json::array()}};
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    json trials = json::array();
    for (int t = 0; t < jobs[j].trials; ++t) {
      json outputs = json::array();
      for (const auto& out : jobs[j].outputs) {
        std::ifstream file(exchange_file(jobs[j].exchange_dir, j, t, out.name), std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        if (bytes.size() != out.bytes()) {
          reply(ReplyStatus::kInternalError, "output file of the wrong size");
          return 0;
        }
        auto first = static_cast<unsigned char>(bytes[0]);
        std::int64_t n = out.elements();
        json o{{"name", out.name}, {"elements", n}, {"max_abs_error", 0.001}};
        if (first == 1)
          o.update({{"mismatches", n / 2}, {"first_bad_index", 1}, {"max_abs_error", 2.0}});
        if (first == 0xff) o.update({{"mismatches", n}, {"nan_count", n}, {"first_bad_index", 0}});
        outputs.push_back(o);
      }
      trials.push_back({{"trial", t},
                        {"seed", std::to_string(trial_seed(jobs[j].seed, t))},
                        {"input_hashes", behaviour == "irreproducible" ? json::array({"x"})
                                                                       : hashes(jobs[j], false)},
                        {"outputs", outputs}});
    }
    body["jobs"].push_back(
        {{"workload", jobs[j].workload}, {"baseline", "fake"}, {"trials", trials}});
  }
  reply(ReplyStatus::kOk, "", body);
  return 0;
}

int timing(const WorkerJob& job, std::string behaviour) {
  if (auto at = behaviour.find('@'); at != std::string::npos) {
    behaviour = behaviour.substr(at + 1) == job.workload ? behaviour.substr(0, at) : "pass";
  }
  if (behaviour == "hang_timing") misbehave("hang");
  if (behaviour == "crash_timing") misbehave("crash");
  if (behaviour == "foreign") {
    reply(ReplyStatus::kForbidden,
          "run() launched kernels that are not the candidate's own: nvjet_tst");
    return 0;
  }
  auto stats = [](double ms) {
    return json{
        {"median_ms", ms}, {"q1_ms", ms}, {"q3_ms", ms}, {"samples", 12}, {"converged", true}};
  };
  const double rows = job.inputs.empty() || job.inputs[0].shape.empty()
                          ? 8.0
                          : static_cast<double>(job.inputs[0].shape[0]);
  reply(ReplyStatus::kOk, "",
        {{"candidate", stats(1.0 + rows / 8.0)},
         {"baseline", stats(1.0)},
         {"outputs_match", behaviour != "cached"},
         {"workload", job.workload}});
  return 0;
}

void log_call(const std::string& mode, const std::vector<WorkerJob>& jobs) {
  const char* path = std::getenv("FAKE_WORKER_LOG");
  if (path == nullptr) return;
  std::ofstream log(path, std::ios::app);
  log << mode;
  for (const auto& job : jobs) log << ' ' << job.workload;
  log << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::string mode = argv[1];
  if (mode == "info") {
    if (std::getenv("FAKE_WORKER_NO_GPU") != nullptr) {
      reply(ReplyStatus::kUnsupported, "no GPU");
      return 0;
    }
    reply(ReplyStatus::kOk, "",
          {{"name", "Fake H200"},
           {"cc_major", 9},
           {"cc_minor", 0},
           {"toolchain", {{"gpu", "Fake H200"}, {"driver", "0.0"}}}});
    return 0;
  }
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  auto jobs = parse_jobs(text);
  if (!jobs) {
    reply(ReplyStatus::kInternalError, jobs.error().message);
    return 2;
  }
  std::string behaviour = jobs->front().library.stem().string();
  log_call(mode, *jobs);
  if (mode == "candidate") return candidate(*jobs, behaviour);
  if (mode == "judge") return judge(*jobs, behaviour);
  if (mode == "time") return timing(jobs->front(), behaviour);
  reply(ReplyStatus::kInternalError, "unknown mode");
  return 2;
}
