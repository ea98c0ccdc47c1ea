// How a ptxbench-worker process answers: one line "PTXBENCH-WORKER-REPLY <json>" on stdout,
// the last such line counting (a candidate may print anything before it). The JSON always has
// "status" and "message"; the rest depends on the mode. Whatever a process prints is untrusted:
// parsing never throws, and the trusted side re-checks what it can (input hashes, output sizes).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::worker {

inline constexpr std::string_view kReplyMarker = "PTXBENCH-WORKER-REPLY ";

enum class ReplyStatus {
  kOk,
  kRuntimeError,   // the candidate failed: load error, run() raised, a fault, out of memory
  kTimeout,        // a call did not finish within its deadline (the worker noticed itself)
  kForbidden,      // the candidate launched kernels that are not its own (timing mode)
  kUnsupported,    // this worker cannot do the job here (no GPU of the arch, no baseline)
  kInternalError,  // ptxbench's own failure
};
std::string_view to_string(ReplyStatus status);
std::optional<ReplyStatus> parse_reply_status(std::string_view text);

struct WorkerReply {
  ReplyStatus status = ReplyStatus::kInternalError;
  std::string message;
  nlohmann::json body = nlohmann::json::object();  // the whole reply object
};

// The line a worker prints (ends with '\n').
std::string format_reply(ReplyStatus status, std::string_view message,
                         nlohmann::json body = nlohmann::json::object());

// The last reply line of `stdout_text`; an Error when there is none or it does not parse.
util::Expected<WorkerReply> parse_reply(std::string_view stdout_text);

}  // namespace ptxbench::eval::worker
