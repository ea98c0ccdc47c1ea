// A stand-in for ptxbench-worker that speaks its protocol without a GPU. What it does depends on
// the candidate library's file name (its stem), so tests can play every way a worker ends:
//   pass, wrong (outputs off), unwritten (outputs still NaN), modify (changes input 0),
//   raise (run() raised), crash (SIGSEGV), abort, hang, garbage (no reply line), exit (exit 3
//   without a reply), foreign (timing sees a library kernel), cached (timed outputs differ),
//   irreproducible (the judge's inputs differ), slow_judge (the judge takes 5 s), wrong_unseen
//   (outputs off on the task's unseen workloads only).
//   "BEHAVIOUR@WORKLOAD" misbehaves in timing only on that workload's call. A timed candidate takes
//   1 + M/8 ms (M: input 0's rows), the baseline 1 ms. With FAKE_WORKER_LOG set, each call appends
//   "MODE WORKLOAD..." to that file ("info DEVICES" for `info`: the CUDA_VISIBLE_DEVICES it got,
//   "-" when unset).
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>

#include "ptxbench/eval/correctness/correctness_protocol.hpp"
#include "ptxbench/eval/reference_cache/judge_references.hpp"
#include "ptxbench/eval/timing/timing_protocol.hpp"
#include "ptxbench/eval/worker/exchange.hpp"
#include "ptxbench/eval/worker/info_protocol.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/eval/worker/worker_reply.hpp"

namespace {

using namespace ptxbench::eval::worker;
namespace correctness = ptxbench::eval::correctness;
namespace timing_protocol = ptxbench::eval::timing;
namespace reference_cache = ptxbench::eval::reference_cache;
using nlohmann::json;

void reply(ReplyStatus status, const std::string& message, json body = json::object()) {
  std::fputs(format_reply(status, message, std::move(body)).c_str(), stdout);
}

std::vector<std::string> hashes(const WorkerJob& job, bool modified) {
  std::vector<std::string> out;
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

int candidate(const std::vector<WorkerJob>& jobs, std::string behaviour) {
  std::puts("the candidate may print anything");
  if (behaviour == "wrong_unseen")
    behaviour = jobs.front().workload.rfind("unseen_", 0) == 0 ? "wrong" : "pass";
  misbehave(behaviour);
  if (behaviour == "raise") {
    reply(ReplyStatus::kRuntimeError,
          "run() on workload " + jobs[0].workload + " (trial 1) raised: boom");
    return 0;
  }
  unsigned char fill = behaviour == "wrong" ? 1 : behaviour == "unwritten" ? 0xff : 0;
  correctness::CandidateReply body;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    correctness::CandidateJob record{.workload = jobs[j].workload};
    for (int t = 0; t < jobs[j].trials; ++t) {
      for (const auto& out : jobs[j].outputs) {
        std::ofstream file(exchange_file(jobs[j].exchange_dir, j, t, out.name), std::ios::binary);
        std::string bytes(out.bytes(), static_cast<char>(fill));
        file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      }
      record.trials.push_back({.trial = t,
                               .seed = trial_seed(jobs[j].seed, t),
                               .input_hashes_before = hashes(jobs[j], false),
                               .input_hashes_after = hashes(jobs[j], behaviour == "modify")});
    }
    body.jobs.push_back(std::move(record));
  }
  reply(ReplyStatus::kOk, "", correctness::to_json(body));
  return 0;
}

int judge(const std::vector<WorkerJob>& jobs, const std::string& behaviour) {
  if (behaviour == "slow_judge") std::this_thread::sleep_for(std::chrono::seconds(5));
  correctness::JudgeReply body;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    correctness::JudgeJob record{.workload = jobs[j].workload, .baseline = "fake"};
    // The reference cache as the real judge uses it: a miss is "computed" and offered.
    reference_cache::JudgeReferences references(jobs[j]);
    for (int t = 0; t < jobs[j].trials; ++t) {
      if (!references.find(trial_seed(jobs[j].seed, t))) {
        reference_cache::ReferenceEntry entry{.reference_unavailable = "fake judge"};
        for (const auto& out : jobs[j].outputs) entry.library.emplace_back(out.bytes(), '\0');
        references.offer(trial_seed(jobs[j].seed, t), entry);
      }
      std::vector<correctness::JudgedOutput> outputs;
      for (const auto& out : jobs[j].outputs) {
        std::ifstream file(exchange_file(jobs[j].exchange_dir, j, t, out.name), std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        if (bytes.size() != out.bytes()) {
          reply(ReplyStatus::kInternalError, "output file of the wrong size");
          return 0;
        }
        auto first = static_cast<unsigned char>(bytes[0]);
        std::int64_t n = out.elements();
        ComparisonTotals totals{.elements = n, .max_abs_error = 0.001};
        if (first == 1) {
          totals.mismatches = n / 2;
          totals.first_bad_index = 1;
          totals.max_abs_error = 2.0;
        }
        if (first == 0xff) {
          totals.mismatches = totals.nan_count = n;
          totals.first_bad_index = 0;
        }
        outputs.push_back({.name = out.name, .totals = totals});
      }
      record.trials.push_back({.trial = t,
                               .seed = trial_seed(jobs[j].seed, t),
                               .input_hashes = behaviour == "irreproducible"
                                                   ? std::vector<std::string>{"x"}
                                                   : hashes(jobs[j], false),
                               .outputs = std::move(outputs)});
    }
    body.jobs.push_back(std::move(record));
    body.reference_cache.hits += references.counts().hits;
    body.reference_cache.misses += references.counts().misses;
  }
  reply(ReplyStatus::kOk, "", correctness::to_json(body));
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
  auto side = [](double ms) {
    return timing_protocol::TimingSide{
        .stats = {.median_ms = ms, .q1_ms = ms, .q3_ms = ms, .samples = 12, .converged = true}};
  };
  const double rows = job.inputs.empty() || job.inputs[0].shape.empty()
                          ? 8.0
                          : static_cast<double>(job.inputs[0].shape[0]);
  timing_protocol::TimingReply body;
  body.candidate = side(1.0 + rows / 8.0);
  body.baseline = side(1.0);
  body.outputs_match = behaviour != "cached";
  reply(ReplyStatus::kOk, "", timing_protocol::to_json(body));
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

void log_info() {
  const char* path = std::getenv("FAKE_WORKER_LOG");
  if (path == nullptr) return;
  const char* devices = std::getenv("CUDA_VISIBLE_DEVICES");
  std::ofstream(path, std::ios::app) << "info " << (devices != nullptr ? devices : "-") << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::string mode = argv[1];
  if (mode == "info") {
    log_info();
    if (std::getenv("FAKE_WORKER_NO_GPU") != nullptr) {
      reply(ReplyStatus::kUnsupported, "no GPU");
      return 0;
    }
    reply(ReplyStatus::kOk, "",
          to_json(InfoReply{.name = "Fake H200",
                            .cc_major = 9,
                            .cc_minor = 0,
                            .fingerprint = "Fake H200|sm_90|driver 0.0",
                            .toolchain = {{"gpu", "Fake H200"}, {"driver", "0.0"}}}));
    return 0;
  }
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  auto jobs = parse_jobs(text);
  if (!jobs) {
    reply(ReplyStatus::kInternalError, jobs.error().message);
    return 2;
  }
  for (const auto& job : *jobs) {
    if (mode_of(job.request) != mode) {
      reply(ReplyStatus::kInternalError, "a job's request is not for the " + mode + " mode");
      return 2;
    }
  }
  std::string behaviour = jobs->front().library.stem().string();
  log_call(mode, *jobs);
  if (mode == "candidate") return candidate(*jobs, behaviour);
  if (mode == "judge") return judge(*jobs, behaviour);
  if (mode == "time") return timing(jobs->front(), behaviour);
  reply(ReplyStatus::kInternalError, "unknown mode");
  return 2;
}
