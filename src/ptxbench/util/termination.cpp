#include "ptxbench/util/termination.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>

#include "ptxbench/util/check.hpp"
#include "ptxbench/util/child_processes.hpp"

namespace ptxbench::util {
namespace {

std::atomic<int> received_signal{0};

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGUSR2);  // wakes the watcher when the program ends normally
  return set;
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
    std::fprintf(stderr, "ptxbench: %s: stopping every child process\n",
                 caught == SIGTERM ? "SIGTERM" : "SIGINT");
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

}  // namespace ptxbench::util
