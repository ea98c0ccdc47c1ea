// Every process group a SystemProcessRunner started and has not reaped yet, so that a signal to
// ptxbench (SIGTERM, SIGINT) can end them all: compute-sanitizer, the worker, nvcc. Once
// stop_all_children() was called no new child starts.
#pragma once
#include <sys/types.h>

#include <stdexcept>

namespace ptxbench::util {

// Records a child's process group; false (and the group is killed) when stopping has begun.
bool register_child_group(pid_t group);
void unregister_child_group(pid_t group);

// Kills every registered group (SIGKILL) and refuses later spawns. Safe to call from any thread.
void stop_all_children();
bool children_stopped();

// Thrown by long operations (the Scheduler) that were cut short because ptxbench is stopping:
// what they would have returned is incomplete and must not be recorded.
class Stopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ptxbench::util
