#include "ptxbench/eval/worker/stage_request.hpp"

#include <string>

#include "ptxbench/eval/worker/protocol_fields.hpp"

namespace ptxbench::eval::worker {
namespace {

template <class... Visitors>
struct Overloaded : Visitors... {
  using Visitors::operator()...;
};
template <class... Visitors>
Overloaded(Visitors...) -> Overloaded<Visitors...>;

}  // namespace

std::string_view mode_of(const StageRequest& request) {
  return std::visit(Overloaded{[](const correctness::CandidateRequest&) { return "candidate"; },
                               [](const correctness::JudgeRequest&) { return "judge"; },
                               [](const ProbeRequest&) { return "probe"; },
                               [](const timing::TimingRequest&) { return "time"; }},
                    request);
}

nlohmann::json to_json(const StageRequest& request) {
  nlohmann::json settings = std::visit(
      Overloaded{[](const correctness::CandidateRequest&) { return nlohmann::json::object(); },
                 [](const correctness::JudgeRequest&) { return nlohmann::json::object(); },
                 [](const ProbeRequest& r) { return eval::to_json(r); },
                 [](const timing::TimingRequest& r) { return timing::to_json(r); }},
      request);
  return {{"mode", std::string(mode_of(request))}, {"settings", std::move(settings)}};
}

util::Expected<StageRequest> stage_request_from_json(const nlohmann::json& json) {
  auto mode = parse_protocol("request", [&] {
    auto name = required<std::string>(json, "mode");
    if (!member(json, "settings").is_object()) throw ProtocolError("settings: not an object");
    return name;
  });
  if (!mode) return mode.error();
  const nlohmann::json& settings = json.at("settings");
  if (*mode == "candidate") return StageRequest(correctness::CandidateRequest{});
  if (*mode == "judge") return StageRequest(correctness::JudgeRequest{});
  if (*mode == "probe") {
    auto probe = probe_request_from_json(settings);
    if (!probe) return probe.error();
    return StageRequest(std::move(*probe));
  }
  if (*mode == "time") {
    auto time = timing::timing_request_from_json(settings);
    if (!time) return time.error();
    return StageRequest(std::move(*time));
  }
  return util::make_error("request: mode: unknown mode '" + *mode + "'");
}

}  // namespace ptxbench::eval::worker
