#include "ptxbench/eval/worker/stage_request.hpp"

#include <string>

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
  if (!json.is_object()) return util::make_error("request: not an object");
  const auto mode = json.find("mode");
  const auto settings = json.find("settings");
  if (mode == json.end() || !mode->is_string()) return util::make_error("request: mode: missing");
  if (settings == json.end() || !settings->is_object()) {
    return util::make_error("request: settings: missing or not an object");
  }
  const std::string name = mode->get<std::string>();
  if (name == "candidate") return StageRequest(correctness::CandidateRequest{});
  if (name == "judge") return StageRequest(correctness::JudgeRequest{});
  if (name == "probe") {
    auto probe = probe_request_from_json(*settings);
    if (!probe) return probe.error();
    return StageRequest(std::move(*probe));
  }
  if (name == "time") {
    auto time = timing::timing_request_from_json(*settings);
    if (!time) return time.error();
    return StageRequest(std::move(*time));
  }
  return util::make_error("request: mode: unknown mode '" + name + "'");
}

}  // namespace ptxbench::eval::worker
