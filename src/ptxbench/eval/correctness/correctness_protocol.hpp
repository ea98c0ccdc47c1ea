// The correctness stage's protocol with ptxbench-worker, one request and one reply per mode:
//   candidate (untrusted)  runs the candidate on each job's trials, leaves the outputs as
//                          exchange files and answers the input hashes before and after each call
//   judge (trusted)        regenerates the inputs from the seeds, computes the reference and
//                          answers, per output, the element rule's totals and the accuracy figures
// The sanitize stage and the ncu fallback of the proof wrap a `candidate` run of one trial.
// This file is the one place these messages are written and read.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/eval/correctness/accuracy_totals.hpp"
#include "ptxbench/eval/correctness/output_comparison.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::correctness {

struct CandidateRequest {};  // the job says it all (trials, exchange folder, limits)
struct JudgeRequest {};

struct CandidateTrial {
  int trial = 0;
  std::uint64_t seed = 0;
  std::vector<std::string> input_hashes_before;  // one per input, ABI order
  std::vector<std::string> input_hashes_after;
  double call_ms = 0;
};

struct CandidateJob {
  std::string workload;
  std::vector<CandidateTrial> trials;
};

struct CandidateReply {
  std::vector<CandidateJob> jobs;  // the jobs run, the failed one last
  std::optional<std::size_t> failed_job;
  std::uint64_t host_memory_budget_bytes = 0;
};

struct JudgedOutput {
  std::string name;
  worker::ComparisonTotals totals;         // the element rule against the library
  std::optional<AccuracyTotals> accuracy;  // against the high-precision reference
  std::string accuracy_unavailable;        // why there are no accuracy figures
};

struct JudgeTrial {
  int trial = 0;
  std::uint64_t seed = 0;
  std::vector<std::string> input_hashes;  // of the regenerated inputs
  std::vector<JudgedOutput> outputs;      // job output order
};

struct JudgeJob {
  std::string workload;
  std::string baseline;  // the baseline's description
  std::vector<JudgeTrial> trials;
};

// Trials whose reference outputs came from the reference cache, and those computed (and
// offered to it); both zero when the cache is off.
struct ReferenceCacheCounts {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
};

struct JudgeReply {
  std::vector<JudgeJob> jobs;
  ReferenceCacheCounts reference_cache;
};

nlohmann::json to_json(const CandidateReply& reply);
util::Expected<CandidateReply> candidate_reply_from_json(const nlohmann::json& body);
nlohmann::json to_json(const JudgeReply& reply);
// One judged trial (the warm judge's compare reply carries one); judge_trial_from throws
// worker::ProtocolError.
nlohmann::json to_json(const JudgeTrial& trial);
JudgeTrial judge_trial_from(const nlohmann::json& json);
util::Expected<JudgeReply> judge_reply_from_json(const nlohmann::json& body);

}  // namespace ptxbench::eval::correctness
