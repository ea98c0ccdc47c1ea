#include "ptxbench/util/live_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "ptxbench/util/child_processes.hpp"
#include "ptxbench/util/spawn.hpp"

namespace ptxbench::util {
namespace {

using Clock = std::chrono::steady_clock;

class SystemLiveProcess final : public LiveProcess {
 public:
  SystemLiveProcess(const ProcessSpec& spec, detail::Spawned spawned)
      : spec_(spec), spawned_(std::move(spawned)), started_(Clock::now()) {
    ::fcntl(spawned_.in.get(), F_SETFL, O_NONBLOCK);
    ::fcntl(spawned_.out.get(), F_SETFL, O_NONBLOCK);
    // stderr is read all the time: a child blocked on a full pipe would hang its parent.
    stderr_reader_ = std::thread([this] { read_stderr(); });
  }
  SystemLiveProcess(const SystemLiveProcess&) = delete;
  SystemLiveProcess& operator=(const SystemLiveProcess&) = delete;
  ~SystemLiveProcess() override {
    if (!reaped_) {
      kill();
      reap_now();
    }
    if (stderr_reader_.joinable()) stderr_reader_.join();
  }

  bool write_line(std::string_view line) override {
    if (spawned_.in.get() < 0) return false;
    std::string text(line);
    text += '\n';
    std::string_view rest = text;
    while (!rest.empty()) {
      pollfd fd{spawned_.in.get(), POLLOUT, 0};
      if (::poll(&fd, 1, 1000) < 0 && errno != EINTR) return false;
      if ((fd.revents & (POLLERR | POLLHUP)) != 0) return false;
      const ssize_t n = ::write(spawned_.in.get(), rest.data(), rest.size());
      if (n > 0) rest.remove_prefix(static_cast<std::size_t>(n));
      if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
      if (stopped()) return false;
    }
    return true;
  }

  std::optional<std::string> read_line(std::chrono::milliseconds timeout) override {
    timed_out_ = false;
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      if (auto newline = pending_.find('\n'); newline != std::string::npos) {
        std::string line = pending_.substr(0, newline);
        pending_.erase(0, newline + 1);
        return line;
      }
      if (out_closed_ || stopped()) return std::nullopt;
      const auto now = Clock::now();
      if (now >= deadline) {
        timed_out_ = true;
        return std::nullopt;
      }
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
      pollfd fd{spawned_.out.get(), POLLIN, 0};
      const int ready =
          ::poll(&fd, 1, static_cast<int>(std::min<long long>(wait.count(), 200)) + 1);
      if (ready < 0 && errno != EINTR) return std::nullopt;
      if (ready <= 0) continue;
      bool truncated = false;
      if (!detail::drain(spawned_.out.get(), pending_, spec_.output_cap_bytes, truncated) ||
          truncated)
        out_closed_ = true;  // end of output, or a line past the cap: no more lines
    }
  }

  bool timed_out() const override { return timed_out_; }

  ProcessResult finish(std::chrono::milliseconds timeout) override {
    spawned_.in.reset();
    ProcessResult result;
    result.started = true;
    const auto deadline = Clock::now() + timeout;
    int status = 0;
    for (;;) {
      const pid_t r = ::waitpid(spawned_.pid, &status, WNOHANG);
      if (r == spawned_.pid) break;
      if (killed_ || Clock::now() >= deadline || stopped()) {
        if (!killed_) {
          result.timed_out = Clock::now() >= deadline;
          result.stopped = !result.timed_out;
        }
        ::kill(-spawned_.pid, SIGKILL);
        ::waitpid(spawned_.pid, &status, 0);
        break;
      }
      ::usleep(2000);
    }
    ::kill(-spawned_.pid, SIGKILL);  // what outlived the program in its group
    unregister_child_group(spawned_.pid);
    reaped_ = true;
    if (stderr_reader_.joinable()) stderr_reader_.join();
    result.wall = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_);
    if (!result.timed_out && !result.stopped && !killed_) {
      if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
    } else if (killed_) {
      result.term_signal = SIGKILL;
    }
    bool truncated = false;
    while (spawned_.out.get() >= 0 &&
           detail::drain(spawned_.out.get(), pending_, spec_.output_cap_bytes, truncated) &&
           !truncated) {
    }
    result.stdout_text = std::move(pending_);
    result.stdout_truncated = truncated;
    std::lock_guard lock(stderr_mutex_);
    result.stderr_text = stderr_;
    result.stderr_truncated = stderr_truncated_;
    return result;
  }

  void kill() override {
    killed_ = true;
    ::kill(-spawned_.pid, SIGKILL);
  }

  pid_t pid() const override { return spawned_.pid; }

  void keep_alive(std::shared_ptr<void> holder) override { held_.push_back(std::move(holder)); }

 private:
  bool stopped() const { return spec_.stop && spec_.stop->load(); }

  void read_stderr() {
    for (;;) {
      pollfd fd{spawned_.err.get(), POLLIN, 0};
      if (::poll(&fd, 1, 200) < 0 && errno != EINTR) return;
      if (fd.revents == 0) {
        if (reaped_) return;
        continue;
      }
      std::lock_guard lock(stderr_mutex_);
      if (!detail::drain(spawned_.err.get(), stderr_, spec_.output_cap_bytes, stderr_truncated_))
        return;
    }
  }

  void reap_now() {
    int status = 0;
    ::waitpid(spawned_.pid, &status, 0);
    unregister_child_group(spawned_.pid);
    reaped_ = true;
  }

  ProcessSpec spec_;
  detail::Spawned spawned_;
  Clock::time_point started_;
  std::string pending_;  // stdout read but not yet taken as lines
  bool out_closed_ = false;
  bool timed_out_ = false;
  std::atomic<bool> killed_ = false;
  std::atomic<bool> reaped_ = false;
  std::thread stderr_reader_;
  std::mutex stderr_mutex_;
  std::string stderr_;
  bool stderr_truncated_ = false;
  std::vector<std::shared_ptr<void>> held_;
};

}  // namespace

Expected<std::unique_ptr<LiveProcess>> start_live_process(const ProcessSpec& spec) {
  detail::Spawned spawned = detail::spawn(spec, true);
  if (!spawned.started()) return make_error(spawned.error);
  ::signal(SIGPIPE, SIG_IGN);  // a child that stops reading must not end ptxbench
  return std::unique_ptr<LiveProcess>(
      std::make_unique<SystemLiveProcess>(spec, std::move(spawned)));
}

}  // namespace ptxbench::util
