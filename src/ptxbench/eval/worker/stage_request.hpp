// What a worker job asks of its process: one request per GPU stage's worker mode, each defined
// and (de)serialised by its stage (correctness_protocol.hpp, probe_protocol.hpp,
// timing_protocol.hpp). The job carries exactly one; the worker refuses a job whose request is
// not for the mode it runs. The sanitize stage and the ncu fallback wrap a candidate run.
#pragma once
#include <nlohmann/json.hpp>
#include <string_view>
#include <variant>

#include "ptxbench/eval/correctness/correctness_protocol.hpp"
#include "ptxbench/eval/proof/probe_protocol.hpp"
#include "ptxbench/eval/timing/timing_protocol.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::worker {

using StageRequest = std::variant<correctness::CandidateRequest, correctness::JudgeRequest,
                                  ProbeRequest, timing::TimingRequest>;

// The worker mode that serves `request`: "candidate", "judge", "probe" or "time".
std::string_view mode_of(const StageRequest& request);

// {"mode": MODE, "settings": {...}} with the stage's own serialisation of the settings.
nlohmann::json to_json(const StageRequest& request);
util::Expected<StageRequest> stage_request_from_json(const nlohmann::json& json);

}  // namespace ptxbench::eval::worker
