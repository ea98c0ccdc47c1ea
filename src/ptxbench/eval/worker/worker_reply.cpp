#include "ptxbench/eval/worker/worker_reply.hpp"

#include <array>
#include <utility>

#include "ptxbench/eval/worker/protocol_fields.hpp"

namespace ptxbench::eval::worker {
namespace {

constexpr std::array<std::pair<ReplyStatus, std::string_view>, 6> kStatuses{{
    {ReplyStatus::kOk, "ok"},
    {ReplyStatus::kRuntimeError, "runtime_error"},
    {ReplyStatus::kTimeout, "timeout"},
    {ReplyStatus::kForbidden, "forbidden"},
    {ReplyStatus::kUnsupported, "unsupported"},
    {ReplyStatus::kInternalError, "internal_error"},
}};

}  // namespace

std::string_view to_string(ReplyStatus status) {
  for (const auto& [s, name] : kStatuses) {
    if (s == status) return name;
  }
  return "internal_error";
}

std::optional<ReplyStatus> parse_reply_status(std::string_view text) {
  for (const auto& [s, name] : kStatuses) {
    if (name == text) return s;
  }
  return std::nullopt;
}

std::string format_reply(ReplyStatus status, std::string_view message, nlohmann::json body) {
  if (!body.is_object()) body = nlohmann::json::object();
  body["status"] = std::string(to_string(status));
  body["message"] = std::string(message);
  // Replacement of invalid UTF-8 keeps a candidate's odd error text from breaking the reply.
  return std::string(kReplyMarker) +
         body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

util::Expected<WorkerReply> parse_reply(std::string_view stdout_text) {
  std::size_t at = stdout_text.rfind(kReplyMarker);
  // The marker must start a line.
  while (at != std::string_view::npos && at > 0 && stdout_text[at - 1] != '\n') {
    at = at == 0 ? std::string_view::npos : stdout_text.rfind(kReplyMarker, at - 1);
  }
  if (at == std::string_view::npos) return util::make_error("the worker printed no reply");
  std::string_view line = stdout_text.substr(at + kReplyMarker.size());
  line = line.substr(0, line.find('\n'));
  auto body = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    return util::make_error("the worker's reply is not a JSON object");
  }
  auto read = parse_protocol("the worker's reply", [&] {
    WorkerReply reply;
    const auto status = required<std::string>(body, "status");
    auto parsed = parse_reply_status(status);
    if (!parsed) throw ProtocolError("status: unknown '" + status + "'");
    reply.status = *parsed;
    reply.message = optional_or(body, "message", std::string());
    return reply;
  });
  if (!read) return read.error();
  WorkerReply reply = std::move(*read);
  reply.body = std::move(body);
  return reply;
}

}  // namespace ptxbench::eval::worker
