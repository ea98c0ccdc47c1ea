#include "ptxbench/eval/correctness/session_protocol.hpp"

#include <algorithm>

#include "ptxbench/eval/worker/protocol_fields.hpp"

namespace ptxbench::eval::correctness {
namespace {

using nlohmann::json;
using worker::optional_or;
using worker::ProtocolError;
using worker::required;

constexpr std::uint64_t kAlignment = 512;   // every tensor starts on a 512-byte boundary
constexpr std::uint64_t kShiftStep = 4096;  // the layout moves by this much per trial
constexpr std::uint64_t kShifts = 16;       // ... cycling through this many positions

std::uint64_t aligned(std::uint64_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

std::uint64_t layout_bytes(const worker::WorkerJob& job) {
  std::uint64_t bytes = 0;
  for (const auto& t : job.inputs) bytes += aligned(t.bytes());
  for (const auto& t : job.outputs) bytes += aligned(t.bytes());
  return bytes;
}

ExchangeKind kind_from(const json& j) {
  const auto text = required<std::string>(j, "exchange");
  if (text == "device") return ExchangeKind::kDevice;
  if (text == "host") return ExchangeKind::kHost;
  throw ProtocolError("exchange: expected device or host (" + text + ")");
}

std::vector<worker::WorkerJob> jobs_from(const json& j) {
  const json& array = worker::member(j, "jobs");
  if (!array.is_array()) throw ProtocolError("jobs: not an array");
  std::vector<worker::WorkerJob> jobs;
  for (const auto& item : array) {
    auto job = worker::job_from_json(item);
    if (!job) throw ProtocolError("jobs: " + job.error().message);
    jobs.push_back(std::move(*job));
  }
  if (jobs.empty()) throw ProtocolError("jobs: empty");
  return jobs;
}

json jobs_to_json(const std::vector<worker::WorkerJob>& jobs) {
  json array = json::array();
  for (const auto& job : jobs) array.push_back(worker::to_json(job));
  return array;
}

json placement_to_json(const TrialPlacement& p) {
  return json{{"inputs", p.inputs}, {"outputs", p.outputs}};
}

TrialPlacement placement_from(const json& j) {
  return TrialPlacement{.inputs = required<std::vector<std::uint64_t>>(j, "inputs"),
                        .outputs = required<std::vector<std::uint64_t>>(j, "outputs")};
}

int set_from(const json& j) {
  const int set = required<int>(j, "set");
  if (set < 0 || set >= kExchangeSets) throw ProtocolError("set: out of range");
  return set;
}

}  // namespace

std::string_view to_string(ExchangeKind kind) {
  return kind == ExchangeKind::kDevice ? "device" : "host";
}

std::uint64_t exchange_set_bytes(const std::vector<worker::WorkerJob>& jobs) {
  std::uint64_t largest = 0;
  for (const auto& job : jobs) largest = std::max(largest, layout_bytes(job));
  return largest + kShiftStep * kShifts;
}

TrialPlacement place_trial(const worker::WorkerJob& job, int trial) {
  TrialPlacement placement;
  std::uint64_t at = kShiftStep * (static_cast<std::uint64_t>(trial) % kShifts);
  for (const auto& t : job.inputs) {
    placement.inputs.push_back(at);
    at += aligned(t.bytes());
  }
  for (const auto& t : job.outputs) {
    placement.outputs.push_back(at);
    at += aligned(t.bytes());
  }
  return placement;
}

json to_json(const OpenRequest& r) {
  return json{{"op", "open"},
              {"session", r.session},
              {"jobs", jobs_to_json(r.jobs)},
              {"reference_cache", r.reference_cache},
              {"device_exchange", r.device_exchange}};
}

json to_json(const OpenReply& r) {
  return json{{"exchange", std::string(to_string(r.kind))},
              {"set_bytes", r.set_bytes},
              {"baselines", r.baselines},
              {"note", r.note}};
}

json to_json(const TrialRequest& r, std::string_view op) {
  return json{{"op", std::string(op)},
              {"session", r.session},
              {"job", r.job},
              {"trial", r.trial},
              {"set", r.set}};
}

json to_json(const PrepareReply& r) {
  return json{{"placement", placement_to_json(r.placement)},
              {"input_hashes", r.input_hashes},
              {"reference_cached", r.reference_cached},
              {"parts", parts_to_json(r.parts)}};
}

json to_json(const CompareReply& r) {
  return json{{"trial", to_json(r.trial)},
              {"input_hashes_after", r.input_hashes_after},
              {"parts", parts_to_json(r.parts)}};
}

json to_json(const CandidateSession& s) {
  return json{{"jobs", jobs_to_json(s.jobs)},
              {"exchange", std::string(to_string(s.kind))},
              {"set_bytes", s.set_bytes},
              {"set_fds", s.set_fds}};
}

json to_json(const CandidateTrialRequest& r) {
  return json{{"job", r.job},
              {"trial", r.trial},
              {"set", r.set},
              {"placement", placement_to_json(r.placement)}};
}

util::Expected<OpenRequest> open_request_from_json(const json& j) {
  return worker::parse_protocol("open", [&] {
    return OpenRequest{.session = required<std::string>(j, "session"),
                       .jobs = jobs_from(j),
                       .reference_cache = optional_or(j, "reference_cache", false),
                       .device_exchange = optional_or(j, "device_exchange", true)};
  });
}

util::Expected<OpenReply> open_reply_from_json(const json& j) {
  return worker::parse_protocol("the judge's open reply", [&] {
    return OpenReply{.kind = kind_from(j),
                     .set_bytes = required<std::uint64_t>(j, "set_bytes"),
                     .baselines = required<std::vector<std::string>>(j, "baselines"),
                     .note = optional_or(j, "note", std::string())};
  });
}

util::Expected<TrialRequest> trial_request_from_json(const json& j) {
  return worker::parse_protocol("trial request", [&] {
    return TrialRequest{.session = required<std::string>(j, "session"),
                        .job = required<std::size_t>(j, "job"),
                        .trial = required<int>(j, "trial"),
                        .set = set_from(j)};
  });
}

util::Expected<PrepareReply> prepare_reply_from_json(const json& j) {
  return worker::parse_protocol("the judge's prepare reply", [&] {
    return PrepareReply{
        .placement = worker::read_member(j, "placement", placement_from),
        .input_hashes = required<std::vector<std::string>>(j, "input_hashes"),
        .reference_cached = optional_or(j, "reference_cached", false),
        .parts = j.contains("parts") ? parts_from_json(j.at("parts")) : StageParts{}};
  });
}

util::Expected<CompareReply> compare_reply_from_json(const json& j) {
  return worker::parse_protocol("the judge's compare reply", [&] {
    return CompareReply{
        .trial = worker::read_member(j, "trial", judge_trial_from),
        .input_hashes_after = required<std::vector<std::string>>(j, "input_hashes_after"),
        .parts = j.contains("parts") ? parts_from_json(j.at("parts")) : StageParts{}};
  });
}

util::Expected<CandidateSession> candidate_session_from_json(const json& j) {
  return worker::parse_protocol("the candidate session", [&] {
    CandidateSession s{.jobs = jobs_from(j),
                       .kind = kind_from(j),
                       .set_bytes = required<std::uint64_t>(j, "set_bytes"),
                       .set_fds = required<std::vector<int>>(j, "set_fds")};
    if (s.set_fds.size() != static_cast<std::size_t>(kExchangeSets))
      throw ProtocolError("set_fds: expected one descriptor per set");
    return s;
  });
}

util::Expected<CandidateTrialRequest> candidate_trial_from_json(const json& j) {
  return worker::parse_protocol("the trial line", [&] {
    return CandidateTrialRequest{.job = required<std::size_t>(j, "job"),
                                 .trial = required<int>(j, "trial"),
                                 .set = set_from(j),
                                 .placement = worker::read_member(j, "placement", placement_from)};
  });
}

}  // namespace ptxbench::eval::correctness
