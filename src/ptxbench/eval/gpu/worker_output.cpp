#include <unistd.h>

#include <cstdio>
#include <string>

#include "ptxbench/eval/gpu/worker_modes.hpp"

namespace ptxbench::eval::gpu {
namespace {

// The reply channel's descriptor: set once by reserve_reply_channel() before anything else
// runs, read by print_reply() from any thread (the watchdog's included).
int& reply_fd() {
  static int fd = STDOUT_FILENO;
  return fd;
}

}  // namespace

void reserve_reply_channel() {
  std::fflush(stdout);
  int fd = ::dup(STDOUT_FILENO);
  if (fd < 0) return;
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  reply_fd() = fd;
}

void print_reply(worker::ReplyStatus status, std::string_view message, nlohmann::json body) {
  std::string line = worker::format_reply(status, message, std::move(body));
  std::fflush(stdout);
  std::string_view rest = line;
  while (!rest.empty()) {
    ssize_t written = ::write(reply_fd(), rest.data(), rest.size());
    if (written <= 0) break;
    rest.remove_prefix(static_cast<std::size_t>(written));
  }
}

std::chrono::milliseconds call_timeout(const worker::WorkerJob& job) {
  return std::chrono::milliseconds(job.extra.value("call_timeout_ms", std::int64_t{20000}));
}

std::uint64_t host_memory_budget(const worker::WorkerJob& job) {
  return job.extra.value("host_memory_budget_bytes", std::uint64_t{16} << 30);
}

}  // namespace ptxbench::eval::gpu
