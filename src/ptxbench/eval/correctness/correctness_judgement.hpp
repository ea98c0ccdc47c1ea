// Stage 6's verdict from the two worker replies (correctness_protocol.hpp): the untrusted candidate
// worker's (input hashes before and after each call) and the trusted judge's (input hashes from the
// same seeds, element rule totals per output). Pure: no processes, no GPU.
//
// Per trial the order of checks follows the verdict taxonomy: an output never written (every
// element still the NaN poison) is INCORRECT_SHAPE; an output outside tolerance or holding
// NaN/Inf is INCORRECT_NUMERICAL; inputs changed by the call are INPUTS_MODIFIED. Inputs the
// judge regenerates differently from the candidate worker are ptxbench's INTERNAL_ERROR.
#pragma once
#include <string>
#include <vector>

#include "ptxbench/eval/correctness/correctness_protocol.hpp"
#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/worker/worker_job.hpp"

namespace ptxbench::eval::worker {

struct CorrectnessJudgement {
  Verdict verdict = Verdict::kPassed;     // the earliest failure in taxonomy order, else kPassed
  std::string message;                    // why, naming workload, trial, output and element
  std::vector<WorkloadResult> workloads;  // one per job, in job order
};

// `headline[j]` marks job j as the task's headline workload.
CorrectnessJudgement judge_correctness(const std::vector<WorkerJob>& jobs,
                                       const std::vector<bool>& headline,
                                       const correctness::CandidateReply& candidate_reply,
                                       const correctness::JudgeReply& judge_reply);

// "C[12, 345]" for a flat row-major index into `shape`.
std::string element_name(const std::string& tensor, const std::vector<std::int64_t>& shape,
                         std::int64_t flat_index);

}  // namespace ptxbench::eval::worker
