// The warm judge's protocol (docs/gpu-engine.md, "The warm judge"). The engine asks the
// long-lived trusted judge of one GPU (`ptxbench-worker judge-server`) over its control socket,
// one JSON line per request and reply:
//   open     a verdict's session: its jobs; the judge makes two exchange sets (memory both it and
//            the candidate process map: device memory it exports, else shared host memory) and
//            answers with their descriptors
//   prepare  a trial in a set: the judge generates the inputs in its own memory, computes (or
//            finds) the library's and the high-precision reference outputs there, copies the
//            inputs into the set and poisons the set's outputs; it answers where the tensors lie
//            and the inputs' hashes
//   compare  the same trial once the candidate ran: the set's inputs hashed again (a call that
//            changed them is caught), its outputs compared with the references on the device
//   close    the session's memory goes
// and the candidate process of the verdict (`ptxbench-worker trials`, untrusted) on its stdin: a
// first line with the jobs and the sets' descriptors, then one line per trial (job, trial, set,
// where the tensors lie), answered by one reply line each. The references never leave the
// judge's own memory: the candidate sees only the sets.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/eval/correctness/correctness_protocol.hpp"
#include "ptxbench/eval/stage_parts.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::correctness {

enum class ExchangeKind { kDevice, kHost };
std::string_view to_string(ExchangeKind kind);  // "device", "host"

// Two sets per session: the candidate runs a trial in one while the judge prepares the next in
// the other.
inline constexpr int kExchangeSets = 2;

// Where one trial's tensors lie in its set: byte offsets, inputs then outputs in ABI order.
struct TrialPlacement {
  std::vector<std::uint64_t> inputs;
  std::vector<std::uint64_t> outputs;
};

// The bytes of one set for `jobs`: the largest job's tensors, aligned, with room for the
// per-trial shift (place_trial).
std::uint64_t exchange_set_bytes(const std::vector<worker::WorkerJob>& jobs);
// The placement of `trial`: tensors 512-byte aligned one after another, the whole layout shifted
// by a multiple of 4 KiB that changes with the trial, so no two trials in a row see the same
// addresses (a kernel that caches a pointer or a descriptor across calls is caught).
TrialPlacement place_trial(const worker::WorkerJob& job, int trial);

struct OpenRequest {
  std::string session;
  std::vector<worker::WorkerJob> jobs;  // the verdict's workloads, shown then unseen
  bool reference_cache = false;         // keep and reuse references in the judge's memory
  bool device_exchange = true;          // false: shared host memory (a test, or a fallback)
};
struct OpenReply {
  ExchangeKind kind = ExchangeKind::kDevice;
  std::uint64_t set_bytes = 0;
  std::vector<std::string> baselines;  // per job: the library reference's description
  std::string note;                    // why the exchange is on the host, when it is
};

struct TrialRequest {
  std::string session;
  std::size_t job = 0;
  int trial = 0;
  int set = 0;
};
struct PrepareReply {
  TrialPlacement placement;
  std::vector<std::string> input_hashes;  // of the inputs the references were computed from
  bool reference_cached = false;          // the references came from the judge's memory
  StageParts parts;
};
struct CompareReply {
  JudgeTrial trial;                             // the element rule and accuracy per output
  std::vector<std::string> input_hashes_after;  // of the set's inputs after the call
  StageParts parts;
};

// The candidate process's first line and its trials.
struct CandidateSession {
  std::vector<worker::WorkerJob> jobs;
  ExchangeKind kind = ExchangeKind::kDevice;
  std::uint64_t set_bytes = 0;
  std::vector<int> set_fds;  // the descriptors it inherited, one per set
};
struct CandidateTrialRequest {
  std::size_t job = 0;
  int trial = 0;
  int set = 0;
  TrialPlacement placement;
};

nlohmann::json to_json(const OpenRequest& request);
nlohmann::json to_json(const OpenReply& reply);
nlohmann::json to_json(const TrialRequest& request, std::string_view op);  // prepare | compare
nlohmann::json to_json(const PrepareReply& reply);
nlohmann::json to_json(const CompareReply& reply);
nlohmann::json to_json(const CandidateSession& session);
nlohmann::json to_json(const CandidateTrialRequest& request);

util::Expected<OpenRequest> open_request_from_json(const nlohmann::json& json);
util::Expected<OpenReply> open_reply_from_json(const nlohmann::json& json);
util::Expected<TrialRequest> trial_request_from_json(const nlohmann::json& json);
util::Expected<PrepareReply> prepare_reply_from_json(const nlohmann::json& json);
util::Expected<CompareReply> compare_reply_from_json(const nlohmann::json& json);
util::Expected<CandidateSession> candidate_session_from_json(const nlohmann::json& json);
util::Expected<CandidateTrialRequest> candidate_trial_from_json(const nlohmann::json& json);

}  // namespace ptxbench::eval::correctness
