#include "ptxbench/util/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "ptxbench/util/check.hpp"
#include "ptxbench/util/child_processes.hpp"
#include "ptxbench/util/live_process.hpp"
#include "ptxbench/util/spawn.hpp"

namespace ptxbench::util {
namespace {

// The deadline, held while the caller says so (ProcessSpec::hold_deadline).
struct Deadline {
  std::chrono::steady_clock::time_point at;
  const ProcessSpec& spec;
  bool passed(std::chrono::steady_clock::time_point now) const {
    return now >= at && !(spec.hold_deadline && spec.hold_deadline->load());
  }
};

// Feeds stdin (non-blocking) while reading both outputs, until both close, the deadline passes
// or the caller stops the process (result.timed_out / result.stopped say which).
void exchange_io(const ProcessSpec& spec, detail::Spawned& launch, const Deadline& deadline,
                 ProcessResult& result) {
  std::string_view pending = spec.stdin_text ? std::string_view(*spec.stdin_text) : "";
  detail::Fd& in = launch.in;
  if (spec.stdin_text) {
    ::fcntl(in.get(), F_SETFL, O_NONBLOCK);
    if (pending.empty()) in.reset();
  } else {
    in.reset();
  }
  ::signal(SIGPIPE, SIG_IGN);
  bool out_open = true, err_open = true;
  while (out_open || err_open) {
    auto now = std::chrono::steady_clock::now();
    if (deadline.passed(now)) {
      result.timed_out = true;
      break;
    }
    if (spec.stop && spec.stop->load()) {
      result.stopped = true;
      break;
    }
    pollfd fds[3];
    nfds_t n = 0;
    int out_i = -1, err_i = -1, in_i = -1;
    if (out_open) {
      out_i = static_cast<int>(n);
      fds[n++] = {launch.out.get(), POLLIN, 0};
    }
    if (err_open) {
      err_i = static_cast<int>(n);
      fds[n++] = {launch.err.get(), POLLIN, 0};
    }
    if (in.get() >= 0) {
      in_i = static_cast<int>(n);
      fds[n++] = {in.get(), POLLOUT, 0};
    }
    auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline.at - now).count();
    int ready = ::poll(fds, n, static_cast<int>(std::clamp<long long>(wait_ms, 0, 1000)) + 1);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    if (out_i >= 0 && fds[out_i].revents != 0)
      out_open = detail::drain(launch.out.get(), result.stdout_text, spec.output_cap_bytes,
                               result.stdout_truncated);
    if (err_i >= 0 && fds[err_i].revents != 0)
      err_open = detail::drain(launch.err.get(), result.stderr_text, spec.output_cap_bytes,
                               result.stderr_truncated);
    if (in_i >= 0 && fds[in_i].revents != 0) {
      ssize_t w = ::write(in.get(), pending.data(), pending.size());
      if (w > 0) pending.remove_prefix(static_cast<std::size_t>(w));
      if (pending.empty() || (w < 0 && errno != EAGAIN && errno != EINTR)) in.reset();
    }
  }
  in.reset();
}

// Reaps the keeper: on deadline or stop kills the whole group; otherwise waits (bounded by the
// same deadline). Its wait status.
int reap(pid_t pid, const ProcessSpec& spec, const Deadline& deadline, ProcessResult& result) {
  int status = 0;
  for (;;) {
    if (result.timed_out || result.stopped) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (deadline.passed(std::chrono::steady_clock::now())) {
      result.timed_out = true;
      continue;
    }
    if (spec.stop && spec.stop->load()) {
      result.stopped = true;
      continue;
    }
    ::usleep(2000);
  }
  ::kill(-pid, SIGKILL);  // leftovers of the group (children that outlived their parent)
  return status;
}

}  // namespace

std::optional<std::filesystem::path> find_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), X_OK) == 0) return std::filesystem::path(name);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!rest.empty()) {
    auto colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    if (dir.empty()) continue;
    std::filesystem::path candidate = std::filesystem::path(dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

std::string ProcessResult::describe_end() const {
  if (!started) return "could not start: " + spawn_error;
  if (timed_out) return fmt::format("timed out after {:.1f} s", wall.count() / 1000.0);
  if (stopped)
    return fmt::format("stopped after {:.1f} s (no longer needed)", wall.count() / 1000.0);
  if (term_signal != 0)
    return fmt::format("killed by signal {} ({})", term_signal, ::strsignal(term_signal));
  return fmt::format("exit {}", exit_code);
}

ProcessResult SystemProcessRunner::run(const ProcessSpec& spec) {
  ProcessResult result;
  auto start = std::chrono::steady_clock::now();
  detail::Spawned spawned = detail::spawn(spec, spec.stdin_text.has_value());
  if (!spawned.started()) {
    result.spawn_error = spawned.error;
    return result;
  }
  result.started = true;
  const Deadline deadline{.at = start + spec.timeout, .spec = spec};
  exchange_io(spec, spawned, deadline, result);
  const int status = reap(spawned.pid, spec, deadline, result);
  unregister_child_group(spawned.pid);
  result.wall = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  if (!result.timed_out && !result.stopped) {
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  }
  return result;
}

Expected<std::unique_ptr<LiveProcess>> ProcessRunner::start(const ProcessSpec& spec) {
  return make_error(spec.argv.empty() ? std::string("empty argv")
                                      : spec.argv[0] + ": this runner starts no live processes");
}

Expected<std::unique_ptr<LiveProcess>> SystemProcessRunner::start(const ProcessSpec& spec) {
  return start_live_process(spec);
}

}  // namespace ptxbench::util
