#include <cstdio>
#include <string>

#include "ptxbench/eval/gpu/worker_modes.hpp"

namespace ptxbench::eval::gpu {

void print_reply(worker::ReplyStatus status, std::string_view message, nlohmann::json body) {
  std::string line = worker::format_reply(status, message, std::move(body));
  std::fflush(stdout);  // whatever the candidate printed goes first
  std::fputs(line.c_str(), stdout);
  std::fflush(stdout);
}

std::chrono::milliseconds call_timeout(const worker::WorkerJob& job) {
  return std::chrono::milliseconds(job.extra.value("call_timeout_ms", std::int64_t{20000}));
}

std::uint64_t host_memory_budget(const worker::WorkerJob& job) {
  return job.extra.value("host_memory_budget_bytes", std::uint64_t{16} << 30);
}

}  // namespace ptxbench::eval::gpu
