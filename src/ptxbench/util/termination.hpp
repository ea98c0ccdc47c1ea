// Stopping cleanly on SIGTERM / SIGINT: a thread waits for the signal, ends every child process
// (child_processes.hpp) and leaves the rest to the normal return path, so that destructors
// remove temporary folders. Ask stop_signal() to learn whether (and by which signal) to stop.
#pragma once
#include <chrono>
#include <thread>

namespace ptxbench::util {

class TerminationWatch {
 public:
  // Blocks SIGTERM and SIGINT in this thread (and the threads it starts later), then watches for
  // them. Create it first thing in main, before any other thread exists. If the program has not
  // returned `grace` after the child processes were ended, the watch ends it with status
  // 128 + signal.
  explicit TerminationWatch(std::chrono::seconds grace = std::chrono::seconds(20));
  ~TerminationWatch();
  TerminationWatch(const TerminationWatch&) = delete;
  TerminationWatch& operator=(const TerminationWatch&) = delete;

 private:
  std::jthread watcher_;
};

// The signal that asked ptxbench to stop, 0 while none has.
int stop_signal();

// For a program that drains when asked to stop (`ptxbench serve`): on the first SIGTERM/SIGINT
// the watch then only records the signal and leaves the child processes running for up to
// `hold`, so that the work under way can finish; the program ends them itself
// (stop_all_children) when it gives up waiting. A second signal, or the end of `hold`, ends
// them at once. Call it before a signal can come.
void let_children_finish_on_stop(std::chrono::seconds hold);

}  // namespace ptxbench::util
