#include "ptxbench/eval/correctness/correctness_protocol.hpp"

#include <string>

#include "ptxbench/eval/worker/protocol_fields.hpp"

namespace ptxbench::eval::correctness {
namespace {

using nlohmann::json;
using worker::optional_or;
using worker::ProtocolError;
using worker::read_array;
using worker::read_member;
using worker::required;

// Seeds travel as strings: JSON readers may round integers above 2^53.
std::uint64_t seed_from(const json& object) {
  const auto text = required<std::string>(object, "seed");
  try {
    std::size_t used = 0;
    const std::uint64_t seed = std::stoull(text, &used);
    if (used == text.size()) return seed;
  } catch (const std::exception&) {
  }
  throw ProtocolError("seed: not an unsigned integer (" + text + ")");
}

const json& object_member(const json& object, const char* key) {
  const json& value = worker::member(object, key);
  if (!value.is_object()) throw ProtocolError(std::string(key) + ": not an object");
  return value;
}

json to_json(const CandidateTrial& t) {
  return json{{"trial", t.trial},
              {"seed", std::to_string(t.seed)},
              {"input_hashes_before", t.input_hashes_before},
              {"input_hashes_after", t.input_hashes_after},
              {"call_ms", t.call_ms}};
}

CandidateTrial candidate_trial_from(const json& j) {
  return CandidateTrial{
      .trial = required<int>(j, "trial"),
      .seed = seed_from(j),
      .input_hashes_before = required<std::vector<std::string>>(j, "input_hashes_before"),
      .input_hashes_after = required<std::vector<std::string>>(j, "input_hashes_after"),
      .call_ms = optional_or(j, "call_ms", 0.0)};
}

json to_json(const JudgedOutput& o) {
  json out = worker::to_json(o.totals);
  out["name"] = o.name;
  if (o.accuracy) out["accuracy"] = to_json(*o.accuracy);
  if (!o.accuracy_unavailable.empty()) out["accuracy_unavailable"] = o.accuracy_unavailable;
  return out;
}

JudgedOutput judged_output_from(const json& j) {
  JudgedOutput o;
  o.name = required<std::string>(j, "name");
  required<std::int64_t>(j, "elements");  // the totals' one member that must be there
  o.totals = worker::totals_from_json(j);
  if (j.contains("accuracy")) o.accuracy = accuracy_totals_from_json(object_member(j, "accuracy"));
  o.accuracy_unavailable = optional_or(j, "accuracy_unavailable", std::string());
  return o;
}

}  // namespace

json to_json(const JudgeTrial& t) {
  json outputs = json::array();
  for (const auto& o : t.outputs) outputs.push_back(to_json(o));
  return json{{"trial", t.trial},
              {"seed", std::to_string(t.seed)},
              {"input_hashes", t.input_hashes},
              {"outputs", std::move(outputs)}};
}

JudgeTrial judge_trial_from(const json& j) {
  return JudgeTrial{.trial = required<int>(j, "trial"),
                    .seed = seed_from(j),
                    .input_hashes = required<std::vector<std::string>>(j, "input_hashes"),
                    .outputs = read_array(j, "outputs", judged_output_from)};
}

json to_json(const CandidateReply& reply) {
  json jobs = json::array();
  for (const auto& job : reply.jobs) {
    json trials = json::array();
    for (const auto& t : job.trials) trials.push_back(to_json(t));
    jobs.push_back(json{{"workload", job.workload}, {"trials", std::move(trials)}});
  }
  json out{{"jobs", std::move(jobs)}, {"host_memory_budget_bytes", reply.host_memory_budget_bytes}};
  if (reply.failed_job) out["failed_job"] = *reply.failed_job;
  return out;
}

util::Expected<CandidateReply> candidate_reply_from_json(const json& body) {
  return worker::parse_protocol("the candidate worker's reply", [&] {
    CandidateReply reply;
    reply.jobs = read_array(body, "jobs", [](const json& j) {
      return CandidateJob{.workload = required<std::string>(j, "workload"),
                          .trials = read_array(j, "trials", candidate_trial_from)};
    });
    if (body.contains("failed_job")) reply.failed_job = required<std::size_t>(body, "failed_job");
    reply.host_memory_budget_bytes =
        optional_or(body, "host_memory_budget_bytes", std::uint64_t{0});
    return reply;
  });
}

json to_json(const JudgeReply& reply) {
  json jobs = json::array();
  for (const auto& job : reply.jobs) {
    json trials = json::array();
    for (const auto& t : job.trials) trials.push_back(to_json(t));
    jobs.push_back(json{
        {"workload", job.workload}, {"baseline", job.baseline}, {"trials", std::move(trials)}});
  }
  return json{{"jobs", std::move(jobs)},
              {"reference_cache",
               {{"hits", reply.reference_cache.hits}, {"misses", reply.reference_cache.misses}}}};
}

util::Expected<JudgeReply> judge_reply_from_json(const json& body) {
  return worker::parse_protocol("the judge worker's reply", [&] {
    JudgeReply reply;
    reply.jobs = read_array(body, "jobs", [](const json& j) {
      return JudgeJob{.workload = required<std::string>(j, "workload"),
                      .baseline = optional_or(j, "baseline", std::string()),
                      .trials = read_array(j, "trials", judge_trial_from)};
    });
    if (body.contains("reference_cache")) {
      reply.reference_cache = read_member(body, "reference_cache", [](const json& r) {
        return ReferenceCacheCounts{.hits = optional_or(r, "hits", std::uint64_t{0}),
                                    .misses = optional_or(r, "misses", std::uint64_t{0})};
      });
    }
    return reply;
  });
}

}  // namespace ptxbench::eval::correctness
