#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "ptxbench/eval/worker/gpu/worker_modes.hpp"

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
  process_parts();  // the clock starts with main()
  std::fflush(stdout);
  int fd = ::dup(STDOUT_FILENO);
  if (fd < 0) return;
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  reply_fd() = fd;
}

PartClock& process_parts() {
  static PartClock clock;
  return clock;
}

void print_reply(worker::ReplyStatus status, std::string_view message, nlohmann::json body) {
  if (!body.is_object()) body = nlohmann::json::object();
  body["parts"] = parts_to_json(process_parts().parts());
  body["wall_s"] = process_parts().elapsed_seconds();
  std::string line = worker::format_reply(status, message, std::move(body));
  std::fflush(stdout);
  std::string_view rest = line;
  while (!rest.empty()) {
    ssize_t written = ::write(reply_fd(), rest.data(), rest.size());
    if (written <= 0) break;
    rest.remove_prefix(static_cast<std::size_t>(written));
  }
}

std::unique_ptr<worker::HostMemoryGuard> guard_host_memory(const worker::WorkerJob& job) {
  std::uint64_t budget = job.limits.host_memory_budget_bytes;
  if (budget == 0) return nullptr;
  return std::make_unique<worker::HostMemoryGuard>(budget, [budget](std::uint64_t resident) {
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    print_reply(
        worker::ReplyStatus::kRuntimeError,
        fmt::format("the worker's resident host memory reached {:.1f} GiB, over the "
                    "candidate's budget of {:.1f} GiB",
                    static_cast<double>(resident) / kGiB, static_cast<double>(budget) / kGiB));
    std::_Exit(0);
  });
}

}  // namespace ptxbench::eval::gpu
