#include "ptxbench/util/termination.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "ptxbench/util/check.hpp"
#include "ptxbench/util/child_processes.hpp"

namespace ptxbench::util {
namespace {

std::atomic<int> received_signal{0};
std::atomic<long long> children_hold_seconds{0};

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGUSR2);  // wakes the watcher when the program ends normally
  return set;
}

// Lets the child processes run for up to `hold` after the first signal: until the program ends
// them itself, a second signal comes or `hold` is over (true), or the program returns (false).
bool hold_children(const sigset_t& set, std::chrono::seconds hold, const std::stop_token& stop) {
  const auto until = std::chrono::steady_clock::now() + hold;
  const timespec tick{.tv_sec = 0, .tv_nsec = 100'000'000};
  while (std::chrono::steady_clock::now() < until && !children_stopped()) {
    const int again = ::sigtimedwait(&set, nullptr, &tick);
    if (stop.stop_requested()) return false;
    if (again == SIGTERM || again == SIGINT) break;
  }
  return !stop.stop_requested();
}

}  // namespace

TerminationWatch::TerminationWatch(std::chrono::seconds grace) {
  const sigset_t set = stop_signals();
  PTXBENCH_CHECK(::pthread_sigmask(SIG_BLOCK, &set, nullptr) == 0, "cannot block SIGTERM");
  watcher_ = std::jthread([set, grace](std::stop_token stop) {
    int caught = 0;
    while (!stop.stop_requested()) {
      if (::sigwait(&set, &caught) != 0) continue;
      if (caught == SIGTERM || caught == SIGINT) break;
    }
    if (stop.stop_requested()) return;
    received_signal = caught;
    const char* name = caught == SIGTERM ? "SIGTERM" : "SIGINT";
    if (!hold_children(set, std::chrono::seconds(children_hold_seconds.load()), stop)) return;
    std::fprintf(stderr, "ptxbench: %s: stopping every child process\n", name);
    stop_all_children();
    // The normal return path removes the temporary folders; this bounds how long it may take.
    for (auto waited = std::chrono::milliseconds(0); waited < grace;
         waited += std::chrono::milliseconds(100)) {
      if (stop.stop_requested()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::_exit(128 + caught);
  });
}

TerminationWatch::~TerminationWatch() {
  watcher_.request_stop();
  ::pthread_kill(watcher_.native_handle(), SIGUSR2);
}

int stop_signal() {
  return received_signal;
}

void let_children_finish_on_stop(std::chrono::seconds hold) {
  children_hold_seconds = hold.count();
}

}  // namespace ptxbench::util
