// A stand-in for ptxbench-worker that speaks its protocol without a GPU. What it does depends on
// the candidate library's file name (its stem), so tests can play every way a worker ends:
//   pass, wrong (outputs off), unwritten (outputs still NaN), modify (changes input 0),
//   raise (run() raised), crash (SIGSEGV), abort, hang, garbage (no reply line), exit (exit 3
//   without a reply), foreign (timing sees a library kernel), cached (timed outputs differ),
//   irreproducible (the judge's inputs differ), slow_judge (the judge takes 5 s), wrong_unseen
//   (outputs off on the task's unseen workloads only).
//   "BEHAVIOUR@WORKLOAD" misbehaves in timing only on that workload's call. The warm judge's
//   modes (`judge-server` on its control socket, `trials` on stdin; correctness/
//   session_protocol.hpp) share host memory: the judge fills each input with its index, poisons
//   each output with 0xff; the candidate writes its outputs with 0 (right) or 1 (wrong), or not at
//   all (unwritten), and `modify` changes input 0. A timed candidate takes
//   1 + M/8 ms (M: input 0's rows), the baseline 1 ms. With FAKE_WORKER_LOG set, each call appends
//   "MODE WORKLOAD..." to that file ("info DEVICES" for `info`: the CUDA_VISIBLE_DEVICES it got,
//   "-" when unset).
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "ptxbench/eval/correctness/correctness_protocol.hpp"
#include "ptxbench/eval/correctness/session_protocol.hpp"
#include "ptxbench/eval/reference_cache/judge_references.hpp"
#include "ptxbench/eval/timing/timing_protocol.hpp"
#include "ptxbench/eval/worker/control_socket.hpp"
#include "ptxbench/eval/worker/exchange.hpp"
#include "ptxbench/eval/worker/info_protocol.hpp"
#include "ptxbench/eval/worker/shared_memory.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/eval/worker/worker_reply.hpp"
#include "ptxbench/util/hash.hpp"

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

// With FAKE_WORKER_LOG set, "MODE WORKLOAD..." per call.
void log_line(const std::string& mode, const std::vector<WorkerJob>& jobs) {
  const char* path = std::getenv("FAKE_WORKER_LOG");
  if (path == nullptr) return;
  std::ofstream log(path, std::ios::app);
  log << mode;
  for (const auto& job : jobs) log << ' ' << job.workload;
  log << '\n';
}

// The bytes of a tensor the stand-ins read and write.
std::size_t touched(const TensorDesc& tensor) {
  return std::min<std::size_t>(tensor.bytes(), 64);
}

std::string region_hash(const std::byte* data, std::size_t bytes) {
  ptxbench::util::Fnv1a64 hash;
  hash.add(std::string_view(reinterpret_cast<const char*>(data), bytes));
  return std::to_string(hash.value());
}

// The warm judge's stand-in: host exchange sets, inputs filled with their index, outputs
// poisoned with 0xff, totals read from the first byte the candidate left.
int judge_server(int control_fd) {
  ControlSocket socket(control_fd);
  if (!socket.send("ready")) return 1;
  struct Session {
    std::vector<WorkerJob> jobs;
    bool reference_cache = false;
    std::vector<SharedMemory> sets;
    std::map<int, correctness::TrialPlacement> placed;  // by set
    std::map<int, std::vector<std::string>> hashes;     // by set
  };
  std::map<std::string, Session> sessions;
  std::set<std::string> kept;  // references kept "on the device"
  for (;;) {
    auto message = socket.receive(std::chrono::hours(1));
    if (!message) return 0;
    json request = json::parse(message->line, nullptr, false);
    json reply{{"ok", true}, {"id", request.value("id", json())}};
    std::vector<int> fds;
    const std::string op = request.value("op", std::string());
    if (op == "open") {
      auto open = correctness::open_request_from_json(request);
      if (!open) return 3;
      Session session{.jobs = open->jobs, .reference_cache = open->reference_cache};
      const auto bytes = correctness::exchange_set_bytes(session.jobs);
      for (int i = 0; i < correctness::kExchangeSets; ++i) {
        session.sets.push_back(std::move(SharedMemory::create(bytes).value()));
        fds.push_back(session.sets.back().fd());
      }
      log_line("judge", session.jobs);  // the warm judge judges these workloads
      // FAKE_DEVICE_EXCHANGE: the judge says its sets are device memory (they are host memory
      // still), so a test can play a candidate that cannot map them.
      const bool device = open->device_exchange && std::getenv("FAKE_DEVICE_EXCHANGE") != nullptr;
      correctness::OpenReply body{
          .kind = device ? correctness::ExchangeKind::kDevice : correctness::ExchangeKind::kHost,
          .set_bytes = bytes,
          .baselines = std::vector<std::string>(session.jobs.size(), "fake")};
      reply.update(correctness::to_json(body));
      sessions[open->session] = std::move(session);
    } else if (op == "prepare" || op == "compare") {
      auto trial = correctness::trial_request_from_json(request);
      if (!trial || !sessions.contains(trial->session)) return 3;
      Session& session = sessions[trial->session];
      const WorkerJob& job = session.jobs.at(trial->job);
      SharedMemory& set = session.sets.at(static_cast<std::size_t>(trial->set));
      if (op == "prepare") {
        if (job.library.stem() == "slow_judge")
          std::this_thread::sleep_for(std::chrono::seconds(5));
        if (job.library.stem() == "kill_judge") std::exit(3);  // the judge itself fails
        const auto placement = correctness::place_trial(job, trial->trial);
        std::vector<std::string> hashes;
        // Only each tensor's first bytes are touched: a stand-in need not move gigabytes.
        for (std::size_t i = 0; i < job.inputs.size(); ++i) {
          const std::size_t n = touched(job.inputs[i]);
          std::memset(set.data() + placement.inputs[i], static_cast<int>(i + 1), n);
          hashes.push_back(region_hash(set.data() + placement.inputs[i], n));
        }
        for (std::size_t o = 0; o < job.outputs.size(); ++o)
          std::memset(set.data() + placement.outputs[o], 0xff, touched(job.outputs[o]));
        const std::string key =
            job.workload + "/" + std::to_string(trial_seed(job.seed, trial->trial));
        const bool cached = session.reference_cache && !kept.insert(key).second;
        session.placed[trial->set] = placement;
        session.hashes[trial->set] = hashes;
        reply.update(correctness::to_json(correctness::PrepareReply{
            .placement = placement, .input_hashes = hashes, .reference_cached = cached}));
      } else {
        const auto& placement = session.placed.at(trial->set);
        correctness::CompareReply body;
        for (std::size_t i = 0; i < job.inputs.size(); ++i)
          body.input_hashes_after.push_back(
              region_hash(set.data() + placement.inputs[i], touched(job.inputs[i])));
        body.trial = correctness::JudgeTrial{.trial = trial->trial,
                                             .seed = trial_seed(job.seed, trial->trial),
                                             .input_hashes = session.hashes.at(trial->set)};
        for (std::size_t o = 0; o < job.outputs.size(); ++o) {
          const auto first = static_cast<unsigned char>(set.data()[placement.outputs[o]]);
          const std::int64_t n = job.outputs[o].elements();
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
          body.trial.outputs.push_back({.name = job.outputs[o].name, .totals = totals});
        }
        reply.update(correctness::to_json(body));
      }
    } else if (op == "close") {
      sessions.erase(request.value("session", std::string()));
    } else {
      reply = json{{"ok", false}, {"message", "unknown op"}, {"id", request.value("id", json())}};
    }
    if (!socket.send(reply.dump(), fds)) return 1;
  }
}

// The candidate process under the warm judge's stand-in.
int trials() {
  std::string line;
  if (!std::getline(std::cin, line)) return 2;
  auto session = correctness::candidate_session_from_json(json::parse(line, nullptr, false));
  if (!session) {
    reply(ReplyStatus::kInternalError, session.error().message);
    return 2;
  }
  if (session->kind == correctness::ExchangeKind::kDevice &&
      std::getenv("FAKE_REFUSE_DEVICE") != nullptr) {
    reply(ReplyStatus::kInternalError, "exchange memory: cuMemImportFromShareableHandle: refused");
    return 2;
  }
  std::vector<SharedMemory> sets;
  for (int fd : session->set_fds) {
    auto set = SharedMemory::map(fd, session->set_bytes);
    if (!set) {
      reply(ReplyStatus::kInternalError, set.error().message);
      return 2;
    }
    sets.push_back(std::move(*set));
  }
  const std::string stem = session->jobs.front().library.stem().string();
  log_line("trials", session->jobs);
  reply(ReplyStatus::kOk, "ready");
  std::fflush(stdout);
  while (std::getline(std::cin, line)) {
    auto trial = correctness::candidate_trial_from_json(json::parse(line, nullptr, false));
    if (!trial) return 2;
    const WorkerJob& job = session->jobs.at(trial->job);
    std::string behaviour = stem;
    if (behaviour == "wrong_unseen")
      behaviour = job.workload.rfind("unseen_", 0) == 0 ? "wrong" : "pass";
    misbehave(behaviour);
    if (behaviour == "raise") {
      reply(ReplyStatus::kRuntimeError, "run() on workload " + job.workload + " (trial " +
                                            std::to_string(trial->trial + 1) + ") raised: boom");
      return 0;
    }
    SharedMemory& set = sets.at(static_cast<std::size_t>(trial->set));
    if (behaviour != "unwritten") {
      const int fill = behaviour == "wrong" ? 1 : 0;
      for (std::size_t o = 0; o < job.outputs.size(); ++o)
        std::memset(set.data() + trial->placement.outputs[o], fill, touched(job.outputs[o]));
    }
    if (behaviour == "modify" && !job.inputs.empty())
      set.data()[trial->placement.inputs[0]] = std::byte{0x7f};
    reply(ReplyStatus::kOk, "", json{{"call_ms", 1.0}});
    std::fflush(stdout);
  }
  return 0;
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
  if (mode == "judge-server") {
    for (int i = 2; i + 1 < argc; ++i) {
      if (std::string(argv[i]) == "--control-fd") return judge_server(std::atoi(argv[i + 1]));
    }
    return 2;
  }
  if (mode == "trials") return trials();
  const bool serve = argc > 2 && std::string(argv[2]) == "--serve";
  std::string text;
  if (serve) {
    std::getline(std::cin, text);  // the job; then "ready", and the work once "go" comes
  } else {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
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
  if (!serve) log_line(mode, *jobs);  // a served process is logged when it works
  if (mode == "candidate") return candidate(*jobs, behaviour);
  if (mode == "judge") return judge(*jobs, behaviour);
  if (mode == "time") {
    if (serve) {
      reply(ReplyStatus::kOk, "ready", json{{"ready", true}});
      std::fflush(stdout);
      std::string go;
      if (!std::getline(std::cin, go) || go != "go") return 0;
      log_line(mode, *jobs);
    }
    return timing(jobs->front(), behaviour);
  }
  reply(ReplyStatus::kInternalError, "unknown mode");
  return 2;
}
